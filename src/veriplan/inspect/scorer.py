"""The scorer: the answer read with veriplan's plan readers and judged by its
validator. Correct only when every line was read and the plan reaches the goal;
the explanation is the validator's diagnosis, the metadata its details."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Score,
    Scorer,
    Target,
    accuracy,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from veriplan.inspect.dataset import instance_from_metadata
from veriplan.planio import parse_plan
from veriplan.verify import ValidationResult, feedback_text, validate_plan

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

METHOD_KEY = "veriplan"  # where the method solver leaves its run in the state's metadata


def judge(text: str, metadata: Mapping[str, object]) -> tuple[ValidationResult, list[str]]:
    """``text`` read as a plan for the sample's task (PlanBench natural
    language and PDDL lines when the dataset has a PlanBench config, PDDL
    lines otherwise) and validated; the validation and the steps read."""
    instance = instance_from_metadata(metadata)
    task = instance.task()
    config = instance.planbench_config()
    parsed = parse_plan(text, task, format="planbench" if config is not None else "pddl",
                        config=config)
    return validate_plan(task, parsed), [str(s) for s in parsed.steps]


def score_metadata(result: ValidationResult) -> dict[str, JSONValue]:
    return {
        "valid": result.valid,
        "failed_step": result.failed_step,
        "failed_action": (str(result.plan[result.failed_step - 1])
                          if result.failed_step is not None else None),
        "error": str(result.error) if result.error else None,
        "unsatisfied": [u.pddl() for u in result.unsatisfied],
        "unmet_goals": [g.pddl() for g in result.unmet_goals],
        "unread_lines": [{"line": u.line, "text": u.text, "reason": u.reason}
                         for u in result.unread],
        "steps": len(result.plan),
    }


@scorer(metrics=[accuracy(), stderr()])
def plan_validator() -> Scorer:
    """C when veriplan's validator accepts the answer (``state.output``) as a
    plan for the sample's task, else I; ``explanation`` is the diagnosis
    (e.g. ``step 2 (pick-up b): precondition (handempty) is false``), the
    metadata holds ``failed_step``, ``failed_action``, ``unsatisfied``,
    ``unmet_goals`` and ``unread_lines`` and, after the method solver, the
    method's own verdict (``method``)."""

    async def score(state: TaskState, target: Target) -> Score:
        result, steps = judge(state.output.completion, state.metadata)
        md = score_metadata(result)
        run = state.metadata.get(METHOD_KEY)
        if run is not None:
            md["method"] = run
        return Score(value=CORRECT if result.valid else INCORRECT, answer="\n".join(steps),
                     explanation=feedback_text(result), metadata=md)

    return score
