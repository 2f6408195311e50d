"""A long name from the input is shown by its start and its length, never whole
(issue 46): in the plan readers' steps and lines, the validator's messages, the
PDDL reader's errors and every output of ``veriplan validate``."""

from __future__ import annotations

import json

import pytest

from tests.conftest import EXAMPLES
from tests.helpers import BLOCKS_DOMAIN, blocks_task
from veriplan.cli import main
from veriplan.errors import SHOWN_MAX, PDDLParseError, VeriplanError, bounded, shown
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.planio import PlanBenchConfig, parse_plan
from veriplan.verify import validate_plan

DOM = str(EXAMPLES / "blocks-domain.pddl")
PROB = str(EXAMPLES / "blocks-problem.pddl")
BIG = 5_000_000  # characters of the long name
LONG = "a" * BIG
#: A long name for the cases beside the main one (the same path, less to read).
MID = "a" * 300_000
#: What a run may print for a plan with one long name: a few KB.
FEW_KB = 4096


def test_shown_cuts_with_the_length():
    assert shown("abc") == "abc"
    assert shown("x" * SHOWN_MAX) == "x" * SHOWN_MAX
    cut = shown("a" * 52_428_800)
    assert cut.startswith('"aaaa') and cut.endswith('…" (52,428,800 characters)')
    assert len(cut) < 100


def test_every_error_message_is_bounded():
    e = VeriplanError(f"unknown object {LONG}: declare it")
    assert len(str(e)) < 200 and "(5,000,000 characters): declare it" in str(e)
    p = PDDLParseError(f"unknown type {LONG}", file="d.pddl", line=3)
    assert len(p.message) < 200 and str(p).startswith("d.pddl:3: unknown type \"aaa")
    assert bounded("short words stay") == "short words stay"


def test_reader_cuts_unknown_long_names_only():
    task = blocks_task()
    parsed = parse_plan(f"(pick-up {LONG})\n(put-down b1)\n", task)
    assert parsed.steps[0].args == (shown(LONG),)
    assert len(str(parsed.steps[0])) < 200
    r = validate_plan(task, parsed)
    assert not r.valid and str(r.error) == "unknown-object"
    assert len(r.feedback()) < 500 and len(r.detail) < 200
    # an unknown action: the line is unread, shown cut, and so is its reason
    parsed = parse_plan(f"({MID} b1 b2)\n", task)
    (u,) = parsed.unread
    assert len(u.text) < 200 and len(u.reason) < 200 and "300,000 characters" in u.reason


def test_a_long_name_of_the_task_is_kept():
    name = "b" * (SHOWN_MAX + 50)
    d = parse_domain(BLOCKS_DOMAIN)
    task = Task(d, parse_problem(f"(define (problem p) (:domain bw) (:objects a {name}) "
                                 f"(:init (ontable {name}) (clear {name}) (handempty)) "
                                 "(:goal (ontable a)))", d))
    parsed = parse_plan(f"(pick-up {name})\n(put-down  {name})\n", task)
    assert [s.args for s in parsed.steps] == [(name,), (name,)]
    assert validate_plan(task, parsed).steps_executed == 2


def test_planbench_reader_bounds_its_lines():
    cfg = PlanBenchConfig.from_dict({
        "domain_name": "bw", "actions": {"pick-up": "pick up the {}"},
        "predicates": {"clear": "the {} is clear"},
        "encoded_objects": {"b1": "red block"}})
    parsed = parse_plan(f"pick up the {MID} block\n", blocks_task(), format="planbench",
                        config=cfg)
    assert all(len(u.text) <= 1100 and len(u.reason) < 400 for u in parsed.unread)
    assert all(len(str(s)) < 300 for s in parsed.steps)


@pytest.fixture(scope="module")
def long_plan(tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("long")
    files = {
        "object": f"(unstack {LONG} a)\n",
        "action": f"({MID} b a)\n",
        "unread": f"(pick-up {MID}\n(put-down b)\n",
    }
    out = {}
    for key, text in files.items():
        (d / f"{key}.txt").write_text(text)
        out[key] = str(d / f"{key}.txt")
    batch = d / "batch.jsonl"
    batch.write_text("".join(json.dumps({"domain": DOM, "problem": PROB, "plan": t}) + "\n"
                             for t in files.values()))
    out["batch"] = str(batch)
    return out


@pytest.mark.parametrize("key", ["object", "action", "unread"])
@pytest.mark.parametrize("json_out", [False, True])
def test_validate_prints_a_few_kb(capsys, long_plan, key, json_out):
    args = ["validate", "--domain", DOM, "--problem", PROB, "--plan", long_plan[key]]
    code = main(args + (["--json"] if json_out else []))
    out = capsys.readouterr()
    assert code == 1
    assert len(out.out) < FEW_KB and len(out.err) < FEW_KB
    assert "5,000,000 characters" in out.out or "300,000 characters" in out.out


def test_validate_batch_prints_a_few_kb(capsys, long_plan):
    code = main(["validate", "--batch", long_plan["batch"]])
    out = capsys.readouterr()
    records = [json.loads(line) for line in out.out.splitlines()]
    assert code == 1 and len(records) == 3 and all(r["valid"] is False for r in records)
    assert len(out.out) < FEW_KB
