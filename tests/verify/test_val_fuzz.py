"""Differential fuzzing against VAL: seeded random walks over every bundled domain,
mutated, judged by veriplan and by VAL. Every disagreement must be one settled in
tests/verify/val_cases/cases.yaml (VAL's errors, with the reason); the shrunk cases
there are regressions. The larger sweep is benchmarks/val_fuzz.py."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, data_root
from veriplan.bench.fuzz_problems import bundled_problems
from veriplan.pddl.parser import parse_domain, parse_problem, read_domain
from veriplan.pddl.task import Task
from veriplan.verify import StepErrorKind, validate_plan
from veriplan.verify.fuzz import (
    MUTATIONS,
    UNKNOWN_ACTION,
    UNKNOWN_OBJECT,
    Disagreement,
    FuzzCase,
    FuzzProblem,
    fuzz,
    mutate,
    random_walk,
    shrink,
    walk_goal,
)
from veriplan.verify.val import (
    KNOWN_VAL_ERRORS,
    ValOutcome,
    disagreement,
    known_val_error,
    val_readable_domain,
)

CASES = yaml.safe_load((Path(__file__).parent / "val_cases" / "cases.yaml").read_text())
FAMILIES = {"blocksworld", "mystery", "blocksworld-hard", "logistics", "sokoban", "examples",
            "towers", "household"}


@pytest.fixture(scope="module")
def sample(val, tmp_path_factory):
    """The seeded sample: 5 problems of each bundled domain (the examples have one),
    7 walks each, every mutation of every walk."""
    skipped: dict[str, str] = {}
    problems = bundled_problems(data_root(), tmp_path_factory.mktemp("fuzz"), per_family=5,
                                seed=0, skipped=skipped, household_max_objects=90)
    return fuzz(problems, val, seed=0, walks=7), skipped


def test_fuzz_sample_agrees_but_for_settled_val_errors(sample):
    report, skipped = sample
    if os.environ.get("CI", "").lower() == "true":
        assert not skipped, skipped
    assert set(report.by_family) | set(skipped) == FAMILIES, (report.by_family, skipped)
    assert report.cases >= 2000, report.by_family
    # The sample reaches every kind of verdict, not only the easy ones.
    for outcome in (ValOutcome.VALID, ValOutcome.PRECONDITION, ValOutcome.GOAL,
                    ValOutcome.BAD_OPERATOR):
        assert report.by_outcome.get(outcome, 0) >= 20, report.by_outcome
    unsettled = [d for d in report.disagreements if known_val_error(d.ours, d.val) is None]
    assert not unsettled, _show(unsettled[:5])


def _show(ds: list[Disagreement]) -> str:
    return "\n".join(f"{d.case.problem.family}/{d.case.problem.name} {d.case.kind} "
                     f"goal={[str(a) for a in d.case.goal]} plan={[str(s) for s in d.case.plan]}"
                     f": {d.reason}" for d in ds)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_settled_case(case, val, tmp_path):
    """A shrunk disagreement: veriplan's verdict, VAL's verdict, and the settlement."""
    domain = read_domain(REPO / case["domain"])
    task = Task(domain, parse_problem(case["problem"], domain))
    plan = case["plan"]  # steps, or a timed plan's text (read as the plan reader reads it)
    if isinstance(plan, str):
        from veriplan.planio import parse_plan

        plan = parse_plan(plan, task)
    ours = validate_plan(task, plan)
    want = case["veriplan"]
    assert ours.valid == want["valid"]
    assert ours.failed_step == want.get("failed_step")
    assert str(ours.error) == want.get("error", "None")
    prob = tmp_path / "problem.pddl"
    prob.write_text(case["problem"])
    theirs = val.judge(REPO / case["domain"], prob, case["plan"])
    assert theirs.outcome == case["val"]["outcome"]
    assert theirs.failed_step == case["val"].get("failed_step")
    if case["settled"] == "fixed":
        assert disagreement(ours, theirs) is None
    else:
        assert case["settled"] in KNOWN_VAL_ERRORS
        assert disagreement(ours, theirs) is not None
        assert known_val_error(ours, theirs) == case["settled"]


def test_every_settlement_has_a_case():
    assert {c["settled"] for c in CASES} - {"fixed"} == set(KNOWN_VAL_ERRORS)
    assert len({c["id"] for c in CASES}) == len(CASES)


# ----- the pieces ---------------------------------------------------------------------------

def _bw() -> Task:
    from tests.helpers import blocks_task

    return blocks_task(4)


def test_walks_are_valid_executions_and_mutations_change_them():
    task = _bw()
    rng = random.Random(3)
    walk, end = random_walk(task, rng, 10)
    assert len(walk) == 10
    goal = walk_goal(task, end, rng)
    assert goal and all(a in task.atoms(end) for a in goal)
    from veriplan.verify.fuzz import goal_variant

    assert validate_plan(goal_variant(task, goal), walk).valid
    for kind in MUTATIONS:
        plan = mutate(task, walk, kind, random.Random(kind))
        if kind == "walk":
            assert plan == walk
            continue
        assert plan != walk, kind
        if kind in ("drop", "cut"):
            assert len(plan) < len(walk)
        if kind == "insert":
            assert len(plan) == len(walk) + 1
        if kind == "unknown-object":
            assert any(UNKNOWN_OBJECT in s.args for s in plan)
        if kind == "unknown-action":
            assert any(s.name == UNKNOWN_ACTION for s in plan)
            assert validate_plan(task, plan).failed_step is not None


def test_shrink_finds_the_smallest_disagreement(val, tmp_path):
    case = next(c for c in CASES if c["id"] == "undeclared-object-goal")
    prob = tmp_path / "two.pddl"
    prob.write_text(case["problem"])
    fp = FuzzProblem("towers", "two", REPO / case["domain"], prob, REPO / case["domain"])
    task = fp.task()
    goal = tuple(task.facts.decode(task.goal.pos))
    long = ("(stack b0 b1)", "(put-down b0)", "(stack ghost-object b1)", "(put-down b0)",
            "(stack b0 b1)")
    from veriplan.core.plan import Step

    start = FuzzCase(fp, "unknown-object", goal, tuple(Step.parse(s) for s in long))
    ours = validate_plan(task, start.plan)
    theirs = val.judge(fp.val_domain, prob, start.plan)
    reason = disagreement(ours, theirs)
    assert reason is not None and ours.failed_step == 3
    small = shrink(Disagreement(start, ours, theirs, reason), val)
    assert [str(s) for s in small.case.plan] == ["(stack ghost-object b1)"]
    assert small.ours.error is StepErrorKind.UNKNOWN_OBJECT
    assert known_val_error(small.ours, small.val) == "undeclared-object"


def test_val_reads_the_household_domain_only_as_rewritten(val, tmp_path):
    """VAL refuses alfred.pddl as the games use it (a predicate filled with arguments
    of other types; untyped parameters in a typed domain); the rewritten copy means
    the same to veriplan and VAL reads it."""
    pytest.importorskip("alfworld")
    from veriplan.envs.household.generator import game_domain, generate

    game = generate("pick_and_place", 7, "g7", solve=False)
    prob = tmp_path / "game.pddl"
    prob.write_text(game.problem)
    original = tmp_path / "alfred-game.pddl"
    original.write_text(game_domain())
    assert val.judge(original, prob, []).outcome is ValOutcome.DOMAIN_ERROR
    rewritten = tmp_path / "alfred-val.pddl"
    rewritten.write_text(val_readable_domain(game_domain()))
    assert val.judge(rewritten, prob, []).outcome is ValOutcome.GOAL
    with pytest.warns(Warning):
        a = parse_domain(game_domain(), strict=False)
    b = parse_domain(rewritten.read_text(), strict=True)
    assert [x.name for x in a.actions] == [x.name for x in b.actions]
    assert a.types == b.types and a.constants == b.constants
    task_a = Task(a, parse_problem(game.problem, a, strict=False))
    task_b = Task(b, parse_problem(game.problem, b, strict=False))
    rng = random.Random(7)
    walk, _ = random_walk(task_a, rng, 6)
    assert validate_plan(task_a, walk).to_dict() == validate_plan(task_b, walk).to_dict()
