"""The PDDL reader's fast path (``read_clean``) against its full reader: wherever the
fast path reads a text, the full reader reads the same steps from the same lines; on
any other text the fast path declines and ``parse_plan`` gives what the full reader
gives."""

from __future__ import annotations

import json
import random

import pytest

from tests.planio.test_corpus import CORPUS, TASKS
from veriplan.core.plan import Step, make_step
from veriplan.planio import ParsedPlan, parse_plan, pddl_plan
from veriplan.planio.pddl_plan import read_clean, schema_vocabulary


@pytest.fixture
def full_reader(monkeypatch):
    """``parse_plan`` with the fast path turned off."""
    def read(text, task, config=None):
        with monkeypatch.context() as m:
            m.setattr(pddl_plan, "read_clean", lambda *args, **kwargs: None)
            return parse_plan(text, task, config=config)
    return read


def fast(text: str, task) -> ParsedPlan | None:
    return read_clean(text, schema_vocabulary(task.schemas).arity, task.schemas, task.objects)


def same(a: ParsedPlan, b: ParsedPlan) -> None:
    """Equal plans, line numbers of the steps included (Step equality ignores them)."""
    assert a == b
    assert [(s.name, s.args, s.line) for s in a.steps] == \
        [(s.name, s.args, s.line) for s in b.steps]


PDDL_ENTRIES = [e for e in CORPUS if e["format"] == "pddl" and e["task"] != "none"]


def test_the_corpus_has_entries_for_both_sides():
    task = {name: t for name, (t, _cfg) in TASKS.items()}
    taken = [e for e in PDDL_ENTRIES if fast(e["text"], task[e["task"]]) is not None]
    assert taken and len(taken) < len(PDDL_ENTRIES)


@pytest.mark.parametrize("entry", PDDL_ENTRIES, ids=[e["name"] for e in PDDL_ENTRIES])
def test_corpus_entries_read_as_by_the_full_reader(entry, full_reader):
    task, cfg = TASKS[entry["task"]]
    cfg = cfg if entry.get("config") else None
    full = full_reader(entry["text"], task, cfg)
    same(parse_plan(entry["text"], task, config=cfg), full)
    got = fast(entry["text"], task)
    if got is not None:
        same(got, full)


def _clean_plan(rng: random.Random, task) -> str:
    """A random plan of known actions and objects in clean PDDL, in any case, with
    spaces and tabs around the words, blank lines and either line end."""
    objects = list(task.objects)
    space = lambda: rng.choice(["", "", " ", "\t", "  "])  # noqa: E731
    lines = []
    for _ in range(rng.randint(0, 12)):
        name, schema = rng.choice(list(task.schemas.items()))
        words = [name, *(rng.choice(objects) for _ in schema.params)]
        words = [w.upper() if rng.random() < 0.1 else w for w in words]
        inner = (space() or " ").join(words) if rng.random() < 0.5 else " ".join(words)
        lines.append(f"{space()}({space()}{inner}{space()}){space()}")
        if rng.random() < 0.1:
            lines.append(space())
    end = rng.choice(["\n", "\r\n"])
    return end.join(lines) + rng.choice(["", end, end + end])


@pytest.mark.parametrize("name", ["blocks", "mystery", "twins"])
def test_generated_clean_plans_take_the_fast_path_and_agree(name, full_reader):
    task = TASKS[name][0]
    rng = random.Random(name)
    for _ in range(300):
        text = _clean_plan(rng, task)
        got = fast(text, task)
        assert got is not None, text
        full = full_reader(text, task)
        same(got, full)
        same(parse_plan(text, task), full)
        assert len(got) == text.count("(")


@pytest.mark.parametrize("change", [
    "(pick-up e)",  # an object the task does not have
    "(pick-up a b)",  # the wrong number of arguments
    "(fly a)",  # no such action
    "(pick-up a) ; take it",  # a comment
    "1. (pick-up a)",  # numbering
    "(pick-up a)\r(put-down a)",  # a line end the fast path does not take
    "(pick-up\u00a0a)",  # a space that is not a space or a tab
    "(pick-up a) (put-down a)",  # two steps on a line
    "[PLAN]",  # a marker
    "pick-up a",  # no parentheses
    "(pick-up A)\n```",  # a code fence
])
def test_anything_else_goes_to_the_full_reader(change, full_reader):
    task = TASKS["blocks"][0]
    text = f"(unstack d c)\n(put-down d)\n{change}\n(pick-up c)\n(stack c a)\n"
    assert fast(text, task) is None
    same(parse_plan(text, task), full_reader(text, task))


PLAN_DOMAIN = """(define (domain words) (:requirements :strips)
  (:predicates (done ?x))
  (:action start :parameters (?x) :precondition (and) :effect (done ?x))
  (:action load-airplane :parameters (?x ?y) :precondition (and) :effect (done ?x)))"""


def test_the_word_plan_goes_fast_unless_the_full_reader_sees_a_marker(full_reader):
    from veriplan.pddl.parser import parse_domain, parse_problem
    from veriplan.pddl.task import Task

    domain = parse_domain(PLAN_DOMAIN)
    task = Task(domain, parse_problem(
        "(define (problem p) (:domain words) (:objects plan x x__y) (:init) "
        "(:goal (done plan)))", domain))
    taken = ["(load-airplane x plan)\n(start x)", "(start x)\n(load-airplane plan plan)",
             "(load-airplane x x)\n(start x)"]
    declined = ["(start x)\n(start plan)\n(load-airplane x x)",  # "start plan": a marker
                "(start plan)",
                "(load-airplane x__y plan)"]  # the full reader drops "__" near a marker
    for text in taken + declined:
        assert (fast(text, task) is not None) == (text in taken), text
        same(parse_plan(text, task), full_reader(text, task))


def test_recorded_planbench_plans_read_as_by_the_full_reader(planbench, full_reader):
    from veriplan.pddl.parser import read_domain, read_problem
    from veriplan.pddl.task import Task

    data = json.loads((planbench / "responses" /
                       "blocksworld__gpt-4_chat__one_shot.json").read_text())
    inst = planbench / "instances" / "blocksworld"
    domain = read_domain(inst / "generated_domain.pddl")
    taken = 0
    for rec in data["instances"][:200]:
        task = Task(domain, read_problem(
            inst / "generated_basic" / f"instance-{rec['instance_id']}.pddl", domain))
        plan = rec["extracted_llm_plan"]
        text = "\n".join(plan) if isinstance(plan, list) else plan
        full = full_reader(text, task)
        same(parse_plan(text, task), full)
        taken += fast(text, task) is not None
    assert taken > 150  # most recorded plans are clean PDDL


def test_make_step_is_a_step():
    s = make_step("stack", ("a", "b"), 3)
    assert type(s) is Step and s == Step("stack", ("a", "b"), 3) and s.line == 3
    assert hash(s) == hash(Step("stack", ("a", "b"))) and str(s) == "(stack a b)"
    with pytest.raises(AttributeError):
        s.name = "x"  # type: ignore[misc]


PIECES = ["(", ")", " ", "\t", "\n", "\r\n", "\r", "plan", "PLAN", "[", "]", ";", "__", "-",
          "1.", "```", "(pick-up a)", "(put-down b)", "(stack a b)", "(unstack d c)",
          "(pick-up e)", "(Stack A B)", "(start plan)", "(plan)", "end", "[PLAN END]",
          "\u00a0", "\u2028", "\u212a", "\u0130", "(feast c b)", "\\n", "\\", "a", "x"]


def test_random_texts_read_as_by_the_full_reader(full_reader):
    """Seeded texts of clean steps, broken steps, markers and odd characters."""
    rng = random.Random(18)
    taken = 0
    for _ in range(1500):
        task = TASKS[rng.choice(["blocks", "mystery", "twins"])][0]
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        got, full = fast(text, task), full_reader(text, task)
        same(parse_plan(text, task), full)
        if got is not None:
            taken += 1
            same(got, full)
    assert 50 < taken < 1400


def test_the_full_reader_keeps_double_underscores_inside_names():
    """Markdown's __bold__ is removed around a step, never inside a name (loc__1)."""
    from veriplan.planio import parse_plan as read

    p = read("Here is my plan:\n1. (pick-up loc__1)\n2. __(stack loc__1 b)__\n")
    assert [str(s) for s in p.steps] == ["(pick-up loc__1)", "(stack loc__1 b)"]
    assert not p.unread
