"""The embedded model re-reads less: recorded prompts replayed with and without the
prefix cache (issue 36, part 3).

The prompts: the transcripts of run stores (``runs.sqlite``) of multi-call methods,
in the order each unit sent them (calls answered from veriplan's response cache left
out, as the model never saw them): SQ-BCP (``results/sqbcp-qwen``), AEC
(``results/aec-qwen``) and the closed loop (``--closed-loop STORE``; no closed-loop
store is kept in ``results/``). Each prompt is sent as the user message it was, at
temperature 0, with at most ``--max-tokens`` answer tokens (the recorded prompts do
not depend on the answers, so a short answer keeps the run short without changing
what is read).

Two copies of the embedded model in one process, the same prompts unit by unit,
alternating which goes first: ``before`` (``prefix_cache_mb=0``: llama.cpp keeps
only the last call's tokens in its context) and ``after`` (the prefix cache,
``--cache-mb``). Printed per method: prompt tokens sent, prompt tokens each read,
seconds a unit, the ratios, and whether the answers are the same.

    flock /tmp/veriplan-model.lock python benchmarks/llamacpp_prefix_cache.py \
        [--units 2] [--calls 8] [--max-tokens 32] [--closed-loop STORE]

``--count`` runs no model: it counts, over ``--units`` units of each method (every
call), the prompt tokens llama.cpp would read with its context alone and with the
cache of ``--cache-mb`` (about 28 KB a token of state for the default model), from
the recorded prompts and answers tokenized as the default model's chat template has
them (Qwen's default system message; units one after another, as a sweep runs them).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
import zlib
from pathlib import Path

import common
from veriplan.llm.backends.llamacpp import LlamaCppBackend
from veriplan.llm.types import LLMRequest, Message

ROOT = Path(__file__).resolve().parents[1]
STORES = [("sqbcp", ROOT / "results" / "sqbcp-qwen" / "runs.sqlite"),
          ("aec", ROOT / "results" / "aec-qwen" / "runs.sqlite")]


def units(store: Path, method: str, n: int, calls: int) -> list[tuple[str, list[str]]]:
    """(unit id, prompts in the order sent) of the first ``n`` units with 2+ model calls."""
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    out = []
    for uid, blob in con.execute("SELECT id, result FROM units WHERE method = ? AND "
                                 "llm_calls > 1 ORDER BY id", (method,)):
        try:
            result = json.loads(zlib.decompress(blob))
        except zlib.error:
            result = json.loads(blob)
        prompts = [t["prompt"] for t in result.get("transcript", [])
                   if t.get("prompt") and not t.get("cached")][:calls]
        if len(prompts) > 1:
            out.append((uid, prompts))
        if len(out) >= n:
            break
    con.close()
    return out


def replay(backend: LlamaCppBackend, prompts: list[str], max_tokens: int
           ) -> tuple[int, int, float, list[str]]:
    """(prompt tokens sent, prompt tokens read, seconds, answers)."""
    sent = read = 0
    answers = []
    start = time.perf_counter()
    for p in prompts:
        r = backend.complete(LLMRequest(messages=(Message("user", p),), temperature=0.0,
                                        max_tokens=max_tokens, seed=0))
        sent += r.prompt_tokens
        read += int(r.extra.get("prompt_evaluated", 0))
        answers.append(r.text)
    return sent, read, time.perf_counter() - start, answers


QWEN_HEAD = ("<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful "
             "assistant.<|im_end|>\n<|im_start|>user\n")
QWEN_TAIL = "<|im_end|>\n<|im_start|>assistant\n"


def _lcp(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def count(stores: list[tuple[str, Path]], n_units: int, cache_mb: int,
          model: str | None) -> None:
    """Prompt tokens sent and read (context only / with the cache), no model run."""
    import llama_cpp

    from veriplan.llm.models import DEFAULT_MODEL, resolve_model

    vocab = llama_cpp.Llama(model_path=str(resolve_model(model or DEFAULT_MODEL)),
                            vocab_only=True, verbose=False)

    def tok(text: str) -> list[int]:
        return vocab.tokenize(text.encode(), add_bos=False, special=True)

    cap = (cache_mb << 20) // (28 << 10)  # tokens of state the cache holds
    print(f"{'method':12s} {'units':>5s} {'calls':>5s} {'sent':>8s} {'read: context':>13s} "
          f"{'read: cache':>11s} {'context/cache':>13s} {'sent/cache':>10s}")
    for method, store in stores:
        con = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
        sent = single = multi = calls = units = 0
        ctx: list[int] = []
        cache: list[list[int]] = []
        for (blob,) in con.execute("SELECT result FROM units WHERE method = ? AND llm_calls > 1 "
                                   "AND result IS NOT NULL ORDER BY id LIMIT ?",
                                   (method, n_units)):
            try:
                result = json.loads(zlib.decompress(blob))
            except zlib.error:
                result = json.loads(blob)
            units += 1
            for t in result.get("transcript", []):
                if not t.get("prompt") or t.get("cached"):
                    continue
                p = tok(QWEN_HEAD + t["prompt"] + QWEN_TAIL)
                full = p + tok(t.get("response") or "")
                calls += 1
                sent += len(p)
                a = _lcp(ctx, p)
                single += len(p) - min(a, len(p) - 1)
                b = max([a, *(_lcp(c, p) for c in cache)])
                multi += len(p) - min(b, len(p) - 1)
                ctx = full
                if cap:
                    cache.append(full)
                while cache and sum(map(len, cache)) > cap:
                    cache.pop(0)
        con.close()
        print(f"{method:12s} {units:5d} {calls:5d} {sent:8d} {single:13d} {multi:11d} "
              f"{single / max(multi, 1):12.2f}x {sent / max(multi, 1):9.2f}x", flush=True)


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--units", type=int, default=2, help="units a method (default 2)")
    ap.add_argument("--calls", type=int, default=8, help="first calls of a unit (default 8)")
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--cache-mb", type=int, default=1024)
    ap.add_argument("--closed-loop", type=Path, default=None,
                    help="a closed-loop run store (runs.sqlite) to replay as well")
    ap.add_argument("--model", default=None)
    ap.add_argument("--count", action="store_true",
                    help="count the tokens read without running the model")
    args = ap.parse_args()
    stores = list(STORES)
    if args.closed_loop:
        stores.insert(0, ("closed-loop", args.closed_loop))
    if args.count:
        extra = [("self-ask", STORES[0][1]), ("aec-react", STORES[1][1])]
        count([(m, s) for m, s in stores + extra if s.is_file()], args.units, args.cache_mb,
              args.model)
        return 0
    work = [(m, units(s, m, args.units, args.calls)) for m, s in stores if s.is_file()]
    before = LlamaCppBackend(args.model, prefix_cache_mb=0)
    after = LlamaCppBackend(args.model, prefix_cache_mb=args.cache_mb)
    load0 = os.getloadavg()[0]
    print(f"{'method':12s} {'units':>5s} {'calls':>5s} {'sent':>7s} {'read before':>11s} "
          f"{'read after':>10s} {'ratio':>6s} {'s/unit before':>13s} {'s/unit after':>12s} "
          f"{'ratio':>6s} same answers")
    flip = False
    for method, todo in work:
        tot = {"before": [0, 0, 0.0], "after": [0, 0, 0.0]}
        same = total = calls = 0
        for _uid, prompts in todo:
            got = {}
            sides = [("before", before), ("after", after)]
            if flip:
                sides.reverse()
            flip = not flip
            for name, backend in sides:
                sent, read, secs, answers = replay(backend, prompts, args.max_tokens)
                t = tot[name]
                t[0] += sent
                t[1] += read
                t[2] += secs
                got[name] = answers
            same += sum(a == b for a, b in zip(got["before"], got["after"], strict=True))
            total += len(prompts)
            calls += len(prompts)
        n = max(1, len(todo))
        b, a = tot["before"], tot["after"]
        print(f"{method:12s} {len(todo):5d} {calls:5d} {b[0]:7d} {b[1]:11d} {a[1]:10d} "
              f"{b[1] / max(a[1], 1):5.2f}x {b[2] / n:13.1f} {a[2] / n:12.1f} "
              f"{b[2] / max(a[2], 1e-9):5.2f}x {same}/{total}", flush=True)
    print(f"load average {load0:.1f} before, {os.getloadavg()[0]:.1f} after; "
          f"max {args.max_tokens} answer tokens; cache {args.cache_mb} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
