"""The LLM layer's own cost: per-call overhead on a cache hit, and how close
200 calls to a backend that takes 50 ms come to the ideal with 16 in flight.

    python benchmarks/llm_overhead.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from veriplan.llm import LLM, LLMRequest, ResponseCache, ScriptedBackend


def cache_hit_overhead(n: int = 2000) -> tuple[float, float]:
    """(seconds per cache hit through the layer, seconds per bare backend call)."""
    with tempfile.TemporaryDirectory() as tmp:
        backend = ScriptedBackend(fn=lambda r: "an answer of a few words")
        llm = LLM(backend, cache=ResponseCache(Path(tmp) / "c.sqlite"))
        requests = [LLMRequest.of(f"question {i} " + "context " * 200) for i in range(n)]
        for r in requests:
            llm.complete(r)  # fill the cache
        start = time.perf_counter()
        for r in requests:
            assert llm.complete(r).cached
        hit = (time.perf_counter() - start) / n
        start = time.perf_counter()
        for r in requests:
            backend.complete(r)
        bare = (time.perf_counter() - start) / n
        return hit, bare


def concurrency(calls: int = 200, delay: float = 0.05, in_flight: int = 16) -> float:
    llm = LLM(ScriptedBackend(fn=lambda r: "ok", delay=delay), max_in_flight=in_flight)
    start = time.perf_counter()
    llm.complete_many([LLMRequest.of(f"q{i}") for i in range(calls)])
    return time.perf_counter() - start


def main() -> int:
    hit, bare = cache_hit_overhead()
    print(f"cache hit through the layer : {hit * 1e3:7.3f} ms/call (target < 1 ms)")
    print(f"bare scripted backend call  : {bare * 1e3:7.3f} ms/call (peer, same requests)")
    print(f"ratio (hit / bare)          : {hit / bare:7.1f}x")
    wall = concurrency()
    ideal = 200 * 0.05 / 16
    print(f"200 calls x 50 ms, 16 in flight: {wall * 1e3:7.1f} ms; ideal {ideal * 1e3:.1f} ms; "
          f"ratio {wall / ideal:.3f} (target <= 1.2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
