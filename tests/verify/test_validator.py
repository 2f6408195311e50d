"""The step-wise validator on hand-made valid and invalid plans."""

from __future__ import annotations

import json

from tests.helpers import adl_task, blocks_task
from veriplan.core.plan import Step
from veriplan.verify import StepErrorKind, check_plan, feedback_text, validate_plan

GOOD = ["(pick-up b2)", "(stack b2 b3)", "(pick-up b1)", "(stack b1 b2)"]


def texts(parts) -> tuple[str, ...]:
    return tuple(p.pddl() for p in parts)


def test_valid_plan():
    r = validate_plan(blocks_task(3), GOOD)
    assert r.valid and r.failed_step is None and r.cost == 4 and r.steps_executed == 4
    assert feedback_text(r) == "the plan is valid: its 4 steps reach the goal"


def test_first_failing_step_and_unsatisfied_preconditions():
    r = validate_plan(blocks_task(3), ["(pick-up b2)", "(stack b2 b3)", "(stack b1 b2)"])
    assert not r.valid and r.failed_step == 3 and r.action == "(stack b1 b2)"
    assert r.error == StepErrorKind.PRECONDITION
    assert texts(r.unsatisfied) == ("(holding b1)",)
    assert r.feedback() == "step 3 (stack b1 b2): precondition (holding b1) is false"
    r = validate_plan(blocks_task(3), ["(pick-up b2)", "(stack b1 b2)"])
    assert set(texts(r.unsatisfied)) == {"(clear b2)", "(holding b1)"}
    assert r.feedback() in (
        "step 2 (stack b1 b2): preconditions (clear b2) and (holding b1) are false",
        "step 2 (stack b1 b2): preconditions (holding b1) and (clear b2) are false")
    r = validate_plan(blocks_task(3), ["(pick-up b2)", "(pick-up b1)"])
    assert set(texts(r.unsatisfied)) == {"(handempty)"}


def test_unmet_goals():
    r = validate_plan(blocks_task(3), GOOD[:2])
    assert not r.valid and r.failed_step is None
    assert texts(r.unmet_goals) == ("(on b1 b2)",)
    assert "goal (on b1 b2) is false at the end" in r.feedback()
    assert texts(validate_plan(blocks_task(3), []).unmet_goals) == ("(on b1 b2)", "(on b2 b3)")


def test_structural_errors_are_reported_per_step():
    plan = ["(fly b1)", "(pick-up b1 b2)", "(pick-up b9)", "(pick-up b1)"]
    r = validate_plan(blocks_task(3), plan)
    assert r.failed_step == 1 and r.error == StepErrorKind.UNKNOWN_ACTION
    assert "unknown action fly; the actions are pick-up, put-down, stack, unstack" in r.detail
    kinds = [(e.index, e.kind) for e in r.step_errors]
    assert kinds == [(1, StepErrorKind.UNKNOWN_ACTION), (2, StepErrorKind.WRONG_ARITY),
                     (3, StepErrorKind.UNKNOWN_OBJECT)]
    assert check_plan(blocks_task(3), [Step.parse(s) for s in plan]) == r.step_errors


def test_wrong_type_and_adl_semantics():
    task = adl_task()
    r = validate_plan(task, ["(grab hall b1)"])
    assert r.error == StepErrorKind.WRONG_TYPE
    r = validate_plan(task, ["(move hall cellar)"])  # (or (open cellar) (lit cellar)) holds
    assert r.failed_step is None
    # Leaving the lit, closed cellar breaks (imply (lit ?from) (open ?from)).
    r = validate_plan(task, ["(move hall cellar)", "(move cellar hall)"])
    assert r.failed_step == 2
    assert texts(r.unsatisfied) == ("(or (not (lit cellar)) (open cellar))",)
    r = validate_plan(task, ["(move hall hall)"])
    assert r.failed_step == 1 and "(not (= hall hall)) is false in every state" in r.detail
    r = validate_plan(task, ["(move hall kitchen)", "(drop-all kitchen)"])
    assert r.unsatisfied and str(r.unsatisfied[0]).startswith("(or (carrying")


def test_conditional_effects_forall_and_costs():
    task = adl_task()
    plan = ["(move hall kitchen)", "(grab b1 kitchen)", "(move kitchen cellar)",
            "(drop-all cellar)"]
    r = validate_plan(task, plan, trace=True)
    assert r.valid and r.cost == 3 + 1 + 4 + 1
    assert "(at b1 cellar)" in r.trace[-1] and "(carrying b1)" not in r.trace[-1]
    r = validate_plan(task, ["(switch hall)", "(switch hall)"], trace=True)
    assert "(lit hall)" in r.trace[1] and "(lit hall)" not in r.trace[2]
    r = validate_plan(task, ["(move hall kitchen)", "(grab b1 kitchen)", "(grab ball1 kitchen)"])
    assert r.failed_step == 3


def test_result_serializes():
    r = validate_plan(blocks_task(3), ["(pick-up b2)", "(stack b1 b2)"], trace=True)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["valid"] is False and d["failed_step"] == 2 and d["error"] == "precondition"
    assert len(d["unsatisfied"]) == 2
    assert d["feedback"].startswith("step 2") and len(d["trace"]) == 2
