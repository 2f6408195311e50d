"""Decoding speed of the embedded model: veriplan's thread count (every CPU the
process may use) against llama-cpp-python's own default (half the CPUs), in
the same run, alternating so that machine noise falls on both.

    flock /tmp/veriplan-model.lock python benchmarks/llamacpp_threads.py [--rounds 2]

Prints tokens per second for prompt processing and decoding, and the ratio.
"""

from __future__ import annotations

import multiprocessing
import sys
import time

import common
from veriplan.llm.backends.llamacpp import usable_cpus
from veriplan.llm.models import DEFAULT_MODEL, resolve_model

PROMPT = ("Write a step-by-step plan for moving a stack of blocks from one table to "
          "another, one block at a time, and say why each step is needed. ") * 20


def measure(path: str, n_threads: int, tokens: int) -> tuple[float, float]:
    """(prompt tokens per second, decoded tokens per second) for one fresh model."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=path, n_ctx=4096, n_threads=n_threads, verbose=False,
                          seed=0)
    n_prompt = len(llm.tokenize(PROMPT.encode()))
    start = time.perf_counter()
    llm.create_completion(PROMPT, max_tokens=1, temperature=0)
    prefill = time.perf_counter() - start
    llm.reset()
    start = time.perf_counter()
    out = llm.create_completion(PROMPT, max_tokens=tokens, temperature=0)
    total = time.perf_counter() - start
    generated = out["usage"]["completion_tokens"]
    return n_prompt / prefill, generated / max(total - prefill, 1e-9)


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=150)
    args = ap.parse_args()
    path = str(resolve_model(DEFAULT_MODEL))
    ours, library = usable_cpus(), max(multiprocessing.cpu_count() // 2, 1)
    print(f"model {DEFAULT_MODEL}; veriplan n_threads={ours}, llama-cpp-python's default "
          f"n_threads={library}")
    speeds: dict[int, list[tuple[float, float]]] = {ours: [], library: []}
    for _ in range(args.rounds):
        for n in dict.fromkeys((library, ours)):
            speeds[n].append(measure(path, n, args.tokens))
            p, d = speeds[n][-1]
            print(f"  n_threads={n}: prompt {p:.1f} tok/s, decode {d:.1f} tok/s", flush=True)
    mean = {n: sum(d for _, d in v) / len(v) for n, v in speeds.items()}
    print(f"decode ratio veriplan/default: {mean[ours] / mean[library]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
