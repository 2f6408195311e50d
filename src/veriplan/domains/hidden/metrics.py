"""What the hidden-precondition report measures per plan: violations on the
true task (the headline) and similarity to the reference plan (ROUGE-1/2 with
the `rouge-score` package, BLEU with `sacrebleu`; the `sqbcp` extra)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from veriplan.core.verdict import FindingKind, Judgement, Verdict
from veriplan.errors import RecordError

if TYPE_CHECKING:
    from veriplan.domains.hidden.task import HiddenTask


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


# Findings that count as a resource or constraint violation (the paper's headline rate).
# An unread step, a goal not reached or a product never made make a plan wrong, not
# violating; an ungrounded finding makes the verdict unknown.
VIOLATION_KINDS = frozenset({FindingKind.MISSING_ITEM, FindingKind.RESOURCE,
                             FindingKind.PRECONDITION, FindingKind.BAD_ARGUMENTS,
                             FindingKind.UNKNOWN_ACTION})
NOT_REACHED = frozenset({FindingKind.GOAL, FindingKind.NOT_PRODUCED})


class PlanJudged(TypedDict):
    """What :func:`judge` says of a plan (a result's metrics; see there)."""

    judgement: dict[str, object]  # the Judgement as stored (Judgement.to_dict)
    verdict: str  # a Verdict's value
    violations: list[str]
    violated: bool
    unread: int
    goal_unmet: bool
    unknown: bool
    no_plan: bool
    rouge1: float | None  # from similarity()
    rouge2: float | None
    bleu: float | None


def judge(task: HiddenTask, plan: Sequence[str]) -> PlanJudged:
    """The task's decider on ``plan`` and its similarity to the reference.

    ``judgement`` is the decider's :class:`~veriplan.core.verdict.Judgement`
    (scope ``HIDDEN_TASK``) as stored; ``verdict`` its verdict (valid, invalid,
    unknown); ``violations`` every finding in words; ``violated`` (the headline
    rate) counts only resource and constraint violations: a step that reads as
    no action (``unread``), a goal not reached or a product never made
    (``goal_unmet``) make the plan wrong, not violating, and are counted apart.
    A plan is verified only when the verdict is valid (``unknown``: no fact of
    the task decides, never verified)."""
    j = task.decide(list(plan))
    kinds = [f.kind for f in j.findings]
    sim = similarity(plan, task.reference)
    return {"judgement": j.to_dict(), "verdict": j.verdict.value,
            "violations": [str(f) for f in j.findings if f.kind is not FindingKind.EMPTY],
            "violated": any(k in VIOLATION_KINDS for k in kinds),
            "unread": sum(k is FindingKind.UNREAD for k in kinds),
            "goal_unmet": any(k in NOT_REACHED for k in kinds),
            "unknown": j.verdict is Verdict.UNKNOWN,
            "no_plan": not plan, "rouge1": sim["rouge1"], "rouge2": sim["rouge2"],
            "bleu": sim["bleu"]}


def judgement(metrics: Mapping[str, object], *, record: str = "record") -> Judgement:
    """The hidden-task judgement stored in a result's ``metrics``. A result
    stored before verdicts were typed (issue 30: no ``judgement`` field; its
    "verified" came from a decider that passed any plan naming no missing
    item) is a :class:`~veriplan.errors.RecordError` naming the record and the
    field, never read as verified."""
    raw = metrics.get("judgement")
    if not isinstance(raw, Mapping):
        raise RecordError(f"{record}: field metrics.judgement is missing: the unit was "
                          "judged before hidden-task verdicts were typed (issue 30), by a "
                          "decider that passed any plan naming no missing item; its "
                          "'verified' is not read. Re-judge the stored plans (python "
                          "benchmarks/sweeps/sqbcp_rejudge.py RUN_DIR --write) or re-run "
                          "the unit")
    try:
        return Judgement.from_dict(raw)
    except (KeyError, ValueError) as exc:
        raise RecordError(f"{record}: field metrics.judgement cannot be read ({exc})"
                          ) from None
