"""Does llama.cpp give the same logits for a prompt read in other batches? (issue 36
part 3: why a kept prefix could change an answer at temperature 0.)

One prompt is read whole, then again split into batches at the given points (each
split a comma-separated list of token positions; the KV cache is cleared between
reads), and the last token's logits are compared with the whole read's. Printed per
split: the batch lengths, the largest absolute difference and whether the logits are
bit-identical. MIN_PROMPT_BATCH in ``veriplan.llm.backends.llamacpp`` comes from this.

    python benchmarks/llamacpp_batch_split.py [--model NAME] [--repeat 2] \\
        [--splits 1 4 8 12 16 20 36 38 39 40 41 42 43 1,40 1,24]
"""

from __future__ import annotations

import sys

import common


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--model", default=None, help="an embedded model name or a GGUF path")
    ap.add_argument("--repeat", type=int, default=2, help="copies of the sentence (2: 44 "
                    "tokens for Qwen2.5-Coder)")
    ap.add_argument("--splits", nargs="*", default=[
        "1", "4", "8", "12", "16", "20", "36", "38", "39", "40", "41", "42", "43", "1,40", "1,24"])
    args = ap.parse_args()
    import llama_cpp
    import numpy as np

    from veriplan.llm.backends.llamacpp import usable_cpus
    from veriplan.llm.models import DEFAULT_MODEL, resolve_model

    m = llama_cpp.Llama(model_path=str(resolve_model(args.model or DEFAULT_MODEL)), n_ctx=512,
                        n_threads=usable_cpus(), verbose=False)
    text = "Facts: the cup is on the table; the door is closed; the lamp is off. "
    toks = m.tokenize((text * args.repeat + "Is the door open?").encode())
    n = len(toks)

    def read(cuts: list[int]) -> np.ndarray:
        m.n_tokens = 0  # Llama.eval clears the KV cache from n_tokens on
        start = 0
        for end in [*cuts, n]:
            m.eval(toks[start:end])
            start = end
        return np.ctypeslib.as_array(m._ctx.get_logits(), shape=(m.n_vocab(),)).copy()

    whole = read([])
    print(f"{n} prompt tokens; read whole twice: identical {bool((read([]) == whole).all())}")
    for spec in args.splits:
        cuts = [int(x) for x in spec.split(",")]
        got = read(cuts)
        sizes = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
        d = float(np.abs(got - whole).max())
        print(f"batches {sizes}: max |diff| {d:.4f}, identical {d == 0.0}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
