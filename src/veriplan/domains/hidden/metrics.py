"""What the hidden-precondition report measures per plan: violations on the
true task (the headline) and similarity to the reference plan (ROUGE-1/2 with
the `rouge-score` package, BLEU with `sacrebleu`; the `sqbcp` extra)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def similarity(plan: Sequence[str], reference: Sequence[str]) -> dict[str, float | None]:
    """ROUGE-1/2 F-measures (0-100) and sentence BLEU (0-100) of the plan's
    text against the reference plan's; None when the packages are missing."""
    hyp, ref = "\n".join(plan), "\n".join(reference)
    out: dict[str, float | None] = {"rouge1": None, "rouge2": None, "bleu": None}
    if not hyp.strip() or not ref.strip():
        return {k: 0.0 for k in out}
    try:
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2"], use_stemmer=True)
        scores = scorer.score(ref, hyp)
        out["rouge1"] = round(100 * scores["rouge1"].fmeasure, 2)
        out["rouge2"] = round(100 * scores["rouge2"].fmeasure, 2)
    except ImportError:
        pass
    try:
        import sacrebleu

        out["bleu"] = round(sacrebleu.sentence_bleu(hyp, [ref]).score, 2)
    except ImportError:
        pass
    return out


NOT_A_VIOLATION = ("unread", "goal")  # a step read as no action; the goal not reached


def judge(task: Any, plan: Sequence[str]) -> dict[str, Any]:
    """The task's decider on ``plan`` and its similarity to the reference.

    ``violations`` lists every finding; ``violated`` (the headline rate) counts
    only resource and constraint violations: a step that reads as no action
    (``unread``) or a goal the plan does not reach makes the plan wrong, not
    violating, and is counted apart (``unread`` steps, ``goal_unmet``). A plan
    is verified only with no finding at all."""
    found = list(task.decide(list(plan))) if plan else []
    return {"violations": [str(v) for v in found],
            "violated": any(v.what not in NOT_A_VIOLATION for v in found),
            "unread": sum(v.what == "unread" for v in found),
            "goal_unmet": any(v.what == "goal" for v in found),
            "no_plan": not plan, **similarity(plan, task.reference)}
