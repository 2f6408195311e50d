"""VAL as the test oracle: its report read into a typed verdict, its quirks survived,
and every plan the suite validates judged by VAL too, with the same verdict and, for
an invalid plan, the same first failing step where VAL names one.

VAL is given the plan in PDDL form, one ``(name args)`` a line: the steps veriplan
read. veriplan is stricter about text (a plan with a line it cannot read is never
valid, whatever its steps); that is a property of the text, not of the steps, and is
compared on its own below."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.helpers import ADL_DOMAIN, ADL_PROBLEM, BLOCKS_DOMAIN, blocks_problem
from veriplan.pddl.parser import parse_domain, parse_problem, read_domain, read_problem
from veriplan.pddl.task import Task
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl
from veriplan.planio import PlanBenchConfig, parse_plan
from veriplan.verify import validate_plan
from veriplan.verify.val import (
    ValInputError,
    ValOutcome,
    ValVerdict,
    disagreement,
    parse_report,
    parse_section,
    plan_text,
)

REPORTS = Path(__file__).parent / "val_cases" / "reports"


# ----- the report, read (recorded VAL 4 output: no VAL needed) ------------------------------

def test_report_of_three_plans_one_process():
    text = (REPORTS / "three-plans.txt").read_text()
    good, bad, short = parse_report(text, ["good.txt", "bad.txt", "short.txt"], 2)
    assert good == ValVerdict(ValOutcome.VALID, exit_code=2, value=6) and good.valid and good.judged
    assert bad.outcome is ValOutcome.PRECONDITION and bad.failed_step == 2
    assert "(Set (handempty) to true)" in bad.detail and not bad.valid
    assert short.outcome is ValOutcome.GOAL and short.failed_step is None
    assert "(on a b)" in short.detail


def test_report_names_plans_by_file_not_position():
    text = (REPORTS / "three-plans.txt").read_text()
    # A name VAL printed with a folder still finds its plan.
    got = parse_report(text, ["/x/short.txt", "/x/good.txt", "/x/bad.txt"])
    assert [v.outcome for v in got] == [ValOutcome.GOAL, ValOutcome.VALID,
                                        ValOutcome.PRECONDITION]


def test_report_of_what_val_cannot_judge():
    (v,) = parse_report((REPORTS / "bad-plan.txt").read_text(), ["unreadable.txt"], 0)
    assert v.outcome is ValOutcome.BAD_PLAN and not v.judged and not v.valid
    good, unk, short = parse_report((REPORTS / "bad-operator-stops.txt").read_text(),
                                    ["good.txt", "unk.txt", "short.txt"], 255)
    assert good.valid and unk.outcome is ValOutcome.BAD_OPERATOR
    assert "foo" in unk.detail
    assert short is None  # VAL stopped: no report on the plan after the unknown action
    (obj,) = parse_report((REPORTS / "unknown-object.txt").read_text(), ["sk2.txt"], 255)
    assert obj.outcome is ValOutcome.UNKNOWN_OBJECT and "ghost" in obj.detail
    a, b = parse_report((REPORTS / "domain-error.txt").read_text(), ["e.txt", "f.txt"], 255)
    assert a.outcome is b.outcome is ValOutcome.DOMAIN_ERROR
    assert "Type problem" in a.detail
    assert parse_report("", ["p.txt"], -11) == [None]
    assert parse_section(["Plan to validate:", "Checking next happening (time 1)"]) is None


# ----- VAL's quirks, survived ---------------------------------------------------------------

GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
UNREADABLE = (EXAMPLES / "blocks-bad-plan.txt").read_text()  # "1. (unstack c a)" lines
DOM, PROB = EXAMPLES / "blocks-domain.pddl", EXAMPLES / "blocks-problem.pddl"


def test_batch_survives_unreadable_plans_and_unknown_actions(val):
    plans = [GOOD, UNREADABLE, GOOD, "(unstack c a)\n(fly c)\n", GOOD.splitlines()[:3],
             "(unstack c a)\n(pick-up b)\n", GOOD]
    # A good plan before an unreadable one crashes VAL; an unknown action ends its run.
    got = val.judge_many(DOM, PROB, plans)
    alone = [val.judge(DOM, PROB, p) for p in plans]
    assert [v.outcome for v in got] == [v.outcome for v in alone]
    assert [v.failed_step for v in got] == [v.failed_step for v in alone]
    assert [v.outcome for v in got] == [
        ValOutcome.VALID, ValOutcome.BAD_PLAN, ValOutcome.VALID, ValOutcome.BAD_OPERATOR,
        ValOutcome.GOAL, ValOutcome.PRECONDITION, ValOutcome.VALID]
    assert got[5].failed_step == 2
    assert val.judge_many(DOM, PROB, []) == []
    with pytest.raises(ValInputError, match="nowhere.pddl"):
        val.judge(DOM.parent / "nowhere.pddl", PROB, GOOD)


def test_plan_text_is_one_step_a_line():
    assert plan_text(["(pick-up a)", "stack a b"]) == "(pick-up a)\n(stack a b)\n"
    assert plan_text("(x)\n") == "(x)\n"


def test_unreadable_lines_veriplan_is_stricter(val):
    """On the text itself VAL cannot read "1. (unstack c a)" at all; veriplan reads
    the numbered steps and judges them, the same as VAL judges them in PDDL form;
    a line neither can read makes the plan invalid to veriplan whatever its steps."""
    task = Task(read_domain(DOM), read_problem(PROB, read_domain(DOM)))
    assert val.judge(DOM, PROB, UNREADABLE).outcome is ValOutcome.BAD_PLAN
    parsed = parse_plan(UNREADABLE, task)
    assert parsed.ok
    assert disagreement(validate_plan(task, parsed), val.judge(DOM, PROB, parsed.steps)) is None
    wrapped = parse_plan("(plant-finish)\n" + GOOD, task)
    assert wrapped.unread and not validate_plan(task, wrapped).valid
    assert validate_plan(task, wrapped.steps).valid
    assert val.judge(DOM, PROB, wrapped.steps).valid


# ----- every plan the suite validates --------------------------------------------------------

def _agree(val, tmp: Path, domain_text: str, problem_text: str, task: Task,
           plans: list) -> int:
    dom, prob = tmp / "domain.pddl", tmp / "problem.pddl"
    dom.write_text(domain_text)
    prob.write_text(problem_text)
    steps = [p.steps if hasattr(p, "steps") else p for p in plans]
    verdicts = val.judge_many(dom, prob, steps)
    for plan, verdict in zip(steps, verdicts):
        ours = validate_plan(task, plan)
        assert disagreement(ours, verdict) is None, (plan, verdict, ours)
    return len(plans)


def test_examples_agree(val, tmp_path):
    task = Task(read_domain(DOM), read_problem(PROB, read_domain(DOM)))
    cfg = PlanBenchConfig.from_yaml(EXAMPLES / "blocks-planbench.yaml")
    plans = [parse_plan(GOOD, task), parse_plan(UNREADABLE, task),
             parse_plan((EXAMPLES / "blocks-plan-planbench.txt").read_text(), task,
                        format="planbench", config=cfg)]
    assert _agree(val, tmp_path, DOM.read_text(), PROB.read_text(), task, plans) == 3


# The plans tests/verify/test_validator.py and test_verdicts.py judge on these tasks.
BLOCKS_PLANS = [
    ["(pick-up b2)", "(stack b2 b3)", "(pick-up b1)", "(stack b1 b2)"],
    ["(pick-up b2)", "(stack b2 b3)", "(stack b1 b2)"],
    ["(pick-up b2)", "(stack b1 b2)"],
    ["(pick-up b2)", "(pick-up b1)"],
    ["(pick-up b2)", "(stack b2 b3)"],
    [],
    ["(fly b1)", "(pick-up b1 b2)", "(pick-up b9)", "(pick-up b1)"],
    ["(pick-up b9)", "(pick-up b1)"],
]
ADL_PLANS = [
    ["(grab hall b1)"],
    ["(move hall cellar)"],
    ["(move hall cellar)", "(move cellar hall)"],
    ["(move hall hall)"],
    ["(move hall kitchen)", "(drop-all kitchen)"],
    ["(move hall kitchen)", "(grab b1 kitchen)", "(move kitchen cellar)",
     "(drop-all cellar)", "(move cellar hall)", "(move hall kitchen)"],
    ["(move hall kitchen)", "(grab b1 kitchen)", "(move kitchen cellar)",
     "(drop-all cellar)"],
    ["(switch hall)", "(switch hall)"],
    ["(move hall kitchen)", "(grab b1 kitchen)", "(grab ball1 kitchen)"],
]


VISITS_PLANS = [["(go a)", "(go a)"], ["(finish)", "(go b)"], ["(go a)"], ["(go a)", "(finish)"],
                ["(go b)", "(finish)"], ["(finish)"]]


@pytest.mark.parametrize("goal", ["(done)", "(and (done) (not (visited a)))",
                                  "(or (done) (visited b))"])
def test_verdict_test_plans_agree(val, tmp_path, goal):
    """tests/verify/test_verdicts.py's small domain, its goals and plans."""
    from tests.verify.test_verdicts import VISITS, visits_task

    task = visits_task(goal)
    problem = problem_to_pddl(task.problem)
    assert _agree(val, tmp_path, VISITS, problem, task, VISITS_PLANS) == len(VISITS_PLANS)


def test_helper_task_plans_agree(val, tmp_path):
    d = parse_domain(BLOCKS_DOMAIN)
    task = Task(d, parse_problem(blocks_problem(3), d))
    assert _agree(val, tmp_path, BLOCKS_DOMAIN, blocks_problem(3), task, BLOCKS_PLANS) == 8
    d = parse_domain(ADL_DOMAIN)
    task = Task(d, parse_problem(ADL_PROBLEM, d))
    assert _agree(val, tmp_path, ADL_DOMAIN, ADL_PROBLEM, task, ADL_PLANS) == 9
    assert sum(validate_plan(task, p).valid for p in ADL_PLANS) >= 1


def test_corpus_answers_agree(val, tmp_path):
    """Every answer of tests/planio/corpus/answers.yaml that has a task: the steps
    read, judged by both."""
    from tests.planio.test_corpus import CORPUS, TASKS, _read

    n = 0
    by_task: dict[str, list] = {}
    for entry in CORPUS:
        if entry["task"] != "none":
            by_task.setdefault(entry["task"], []).append(_read(entry)[1])
    for name, plans in by_task.items():
        task = TASKS[name][0]
        n += _agree(val, tmp_path, domain_to_pddl(task.domain),
                    problem_to_pddl(task.problem), task, plans)
    assert n >= 40


# ----- PlanBench's recorded GPT-4 answers ----------------------------------------------------

SETS = [
    ("blocksworld__gpt-4_chat__one_shot.json", "blocksworld/generated_domain.pddl",
     "blocksworld/generated_basic"),
    ("mystery_blocksworld__gpt-4_chat__one_shot.json",
     "blocksworld/mystery/generated_domain.pddl", "blocksworld/mystery/generated_basic"),
]


@pytest.mark.parametrize("resp,dom,probs", SETS, ids=["blocksworld", "mystery"])
def test_planbench_responses_agree(val, planbench, resp, dom, probs):
    """All 500 answers of each set, one VAL process each (as PlanBench calls it):
    the same verdict, and the same first failing step."""
    domain_file = planbench / "instances" / dom
    domain = read_domain(domain_file)
    kinds: dict[str, int] = {}
    for rec in json.loads((planbench / "responses" / resp).read_text())["instances"]:
        plan = rec["extracted_llm_plan"]
        plan = "\n".join(plan) if isinstance(plan, list) else plan
        prob = planbench / "instances" / probs / f"instance-{rec['instance_id']}.pddl"
        task = Task(domain, read_problem(prob, domain))
        parsed = parse_plan(plan, task)
        assert parsed.ok, rec["instance_id"]
        verdict = val.judge(domain_file, prob, parsed.steps)
        ours = validate_plan(task, parsed)
        assert disagreement(ours, verdict) is None, (rec["instance_id"], verdict, ours)
        if verdict.outcome is ValOutcome.PRECONDITION:
            assert verdict.failed_step == ours.failed_step
        kinds[verdict.outcome] = kinds.get(verdict.outcome, 0) + 1
    assert sum(kinds.values()) == 500
    assert kinds.get(ValOutcome.VALID) and kinds.get(ValOutcome.PRECONDITION)
    assert kinds.get(ValOutcome.GOAL)
