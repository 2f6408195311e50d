"""``veriplan validate --explain-reading``: which lines became which step, and why
every other line was left aside (issue 34)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import MYSTERY_DOMAIN
from tests.planio.test_corpus import TASKS
from veriplan.cli import main
from veriplan.planio import parse_plan
from veriplan.planio.explain import explain_reading

ANSWER = """To reach your goal, follow this plan:

1. **Attack object a**
2. **Overcome object a from object c**
   - But object c has no province yet, so this fails.

Alternative approach:
1. **Feast object c from object b**
   - needs object c craves object b, Province object c, Harmony
2. **Succumb object c**
3. **Attack object a**
4. **Overcome object a from object c**

**Summary of actions:**
- Feast c from b
- Succumb c
- Attack a
- Overcome a from c
"""

PROBLEM = """(define (problem p) (:domain mystery)
  (:objects a b c d)
  (:init (craves c b) (province c) (province a) (province d) (planet a) (planet b)
         (planet d) (harmony))
  (:goal (craves a c)))
"""
CONFIG = """domain_name: mystery
actions:
  attack: "attack {}"
  succumb: "succumb {}"
  overcome: "overcome {} from {}"
  feast: "feast {} from {}"
encoded_objects: {"a": "object a", "b": "object b", "c": "object c", "d": "object d"}
"""


def test_every_line_is_accounted_for():
    task, cfg = TASKS["mystery"]
    parsed = parse_plan(ANSWER, task, format="planbench", config=cfg)
    records = explain_reading(ANSWER, parsed)
    assert [r["line"] for r in records] == list(range(1, len(ANSWER.splitlines()) + 1))
    steps = {r["line"]: [s["number"] for s in r["steps"]] for r in records
             if r["as"] == "step"}
    assert steps == {8: [1], 10: [2], 11: [3], 12: [4]}
    why = {r["line"]: r["reason"] for r in records if r["as"] in ("prose", "unread")}
    assert "gives up" in why[3] and "gives up" in why[4]
    assert "indented under the step at line 8" in why[9]
    assert all("restates the plan" in why[n] for n in (15, 16, 17, 18))
    assert {r["as"] for r in records} <= {"step", "prose", "unread", "blank", "other"}


@pytest.fixture
def files(tmp_path):
    for name, text in (("d.pddl", MYSTERY_DOMAIN), ("p.pddl", PROBLEM), ("cfg.yaml", CONFIG),
                       ("plan.txt", ANSWER)):
        (tmp_path / name).write_text(text)
    return tmp_path


def _args(files, *extra):
    return ["validate", "--domain", str(files / "d.pddl"), "--problem", str(files / "p.pddl"),
            "--plan", str(files / "plan.txt"), "--format", "planbench",
            "--planbench-config", str(files / "cfg.yaml"), *extra]


def test_cli_explains_the_reading(files, capsys):
    assert main(_args(files, "--explain-reading")) == 0
    out = capsys.readouterr().out
    assert "line   8 -> step 1 (feast c b)" in out
    assert "line   3 prose (an attempt the answer gives up" in out
    assert out.rstrip().splitlines()[-1].startswith("valid:")


def test_cli_json_record_holds_the_reading(files, capsys):
    assert main(_args(files, "--explain-reading", "--json")) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["valid"] is True
    assert [r["line"] for r in record["reading"] if r["as"] == "step"] == [8, 10, 11, 12]
    # without the option the record is as before
    assert main(_args(files, "--json")) == 0
    assert "reading" not in json.loads(capsys.readouterr().out)
