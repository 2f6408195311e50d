"""Structured output on the embedded model: veriplan's greedy grammar sampling
(the best token checked alone, the whole vocabulary masked only when the grammar
refuses it) against llama-cpp-python's own chain (the grammar run over the whole
vocabulary for every token), on the same prompts and model, alternating.

    flock /tmp/veriplan-model.lock python benchmarks/llamacpp_grammar.py [--rounds 1]

The prompts are SQ-BCP's first (a recipe task and a hidden-fact PDDL task, as
recorded in results/sqbcp-qwen) with SQ-BCP's hypothesis schema. Prints seconds per answer for each,
whether the two answers are the same text (they must be), how many tokens needed
the mask, and the ratio.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import common
from veriplan.llm.backends.llamacpp import GreedyGrammarSampler, LlamaCppBackend, usable_cpus
from veriplan.llm.models import DEFAULT_MODEL, resolve_model

STORE = Path(__file__).resolve().parent.parent / "results" / "sqbcp-qwen"


def prompts() -> list[str]:
    """SQ-BCP's first prompt on the first recipe and PDDL tasks, as recorded in
    the issue-13 run store."""
    from veriplan.bench.store import RunStore

    store = RunStore(STORE, create=False)
    try:
        out = []
        for rec in store.records():
            if rec.method == "sqbcp" and rec.instance in ("recipe-0-v1",
                                                          "blocksworld/instance-1"):
                out.append(rec.result_dict()["transcript"][0]["prompt"])
        return out
    finally:
        store.close()


def main() -> int:
    import llama_cpp

    from veriplan.methods.sqbcp.hypothesis import hypotheses_schema

    ap = common.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--max-tokens", type=int, default=900)
    args = ap.parse_args()
    path = str(resolve_model(DEFAULT_MODEL))
    ours = LlamaCppBackend(model_path=path)
    library = llama_cpp.Llama(model_path=path, n_ctx=16384, n_threads=usable_cpus(),
                              verbose=False, seed=0)
    grammar, _ = ours._grammar(hypotheses_schema(3))
    times: dict[str, list[float]] = {"veriplan": [], "library": []}
    for _ in range(args.rounds):
        for prompt in prompts():
            msgs = [{"role": "user", "content": prompt}]
            texts = {}
            for name, llm in (("library", library), ("veriplan", ours._llm)):
                llm.reset()
                start = time.perf_counter()
                out = llm.create_chat_completion(messages=msgs, temperature=0.0,
                                                 max_tokens=args.max_tokens, grammar=grammar)
                times[name].append(time.perf_counter() - start)
                texts[name] = out["choices"][0]["message"]["content"]
                tokens = out["usage"]["completion_tokens"]
            sampler = ours._llm._sampler
            masked = (f"{sampler.fallbacks}/{sampler.checked} tokens masked"
                      if isinstance(sampler, GreedyGrammarSampler) else "sampler not used")
            print(f"  {tokens} tokens: library {times['library'][-1]:.1f} s, veriplan "
                  f"{times['veriplan'][-1]:.1f} s; {masked}; same text: "
                  f"{texts['library'] == texts['veriplan']}", flush=True)
    ratio = sum(times["library"]) / sum(times["veriplan"])
    print(f"speed ratio veriplan/library (seconds library / seconds veriplan): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
