"""The regression corpus of model answers (corpus/answers.yaml): every shape is read
to the expected steps, and nothing is read from prose or from a line with no single
reading."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.helpers import BLOCKS_DOMAIN, MYSTERY_DOMAIN
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.planio import PlanBenchConfig, parse_plan
from veriplan.verify import validate_plan

CORPUS = yaml.safe_load((Path(__file__).parent / "corpus" / "answers.yaml").read_text())

TWINS_DOMAIN = """
(define (domain twins)
  (:requirements :strips)
  (:predicates (at ?p) (in ?p ?v))
  (:action load-truck :parameters (?p ?v) :precondition (at ?p)
    :effect (and (in ?p ?v) (not (at ?p))))
  (:action load-airplane :parameters (?p ?v) :precondition (at ?p)
    :effect (and (in ?p ?v) (not (at ?p)))))
"""


def _task(domain: str, problem: str) -> Task:
    d = parse_domain(domain)
    return Task(d, parse_problem(problem, d))


BLOCK_ACTIONS = {"pick-up": "pick up the {}", "put-down": "put down the {}",
                 "stack": "stack the {} on top of the {}",
                 "unstack": "unstack the {} from on top of the {}"}
TASKS = {
    "blocks": (_task(BLOCKS_DOMAIN, """(define (problem p) (:domain bw) (:objects a b c d)
        (:init (on d c) (ontable c) (ontable a) (ontable b) (clear d) (clear a) (clear b)
               (handempty))
        (:goal (on c a)))"""), PlanBenchConfig.from_dict({
        "actions": BLOCK_ACTIONS,
        "encoded_objects": {"a": "red block", "b": "blue block", "c": "orange block",
                            "d": "yellow block"},
        "encoded_objects_compact": {"a": "red", "b": "blue", "c": "orange", "d": "yellow"}})),
    "mystery": (_task(MYSTERY_DOMAIN, """(define (problem p) (:domain mystery)
        (:objects a b c d)
        (:init (craves c b) (province c) (province a) (province d) (planet a) (planet b)
               (planet d) (harmony))
        (:goal (craves a c)))"""), PlanBenchConfig.from_dict({
        "actions": {"attack": "attack {}", "succumb": "succumb {}",
                    "overcome": "overcome {} from {}", "feast": "feast {} from {}"},
        "encoded_objects": {o: f"object {o}" for o in "abcd"}})),
    "twins": (_task(TWINS_DOMAIN, """(define (problem p) (:domain twins) (:objects p v)
        (:init (at p)) (:goal (in p v)))"""), PlanBenchConfig.from_dict({
        "actions": {"load-truck": "load {} into {}", "load-airplane": "load {} into {}"},
        "encoded_objects": {"p": "parcel", "v": "van"}})),
    "boxes": (_task(BLOCKS_DOMAIN, """(define (problem p) (:domain bw) (:objects a b c)
        (:init (ontable a) (ontable b) (ontable c) (clear a) (clear b) (clear c)
               (handempty)) (:goal (on c a)))"""), PlanBenchConfig.from_dict({
        "actions": BLOCK_ACTIONS,
        "encoded_objects": {"a": "big", "b": "big box", "c": "box"}})),
}


def _read(entry: dict):
    if entry["task"] == "none":
        return None, parse_plan(entry["text"])
    task, cfg = TASKS[entry["task"]]
    if entry["format"] == "planbench":
        return task, parse_plan(entry["text"], task, format="planbench", config=cfg)
    return task, parse_plan(entry["text"], task, config=cfg if entry.get("config") else None)


@pytest.mark.parametrize("entry", CORPUS, ids=[e["name"] for e in CORPUS])
def test_corpus_answer(entry):
    task, parsed = _read(entry)
    assert [str(s) for s in parsed.steps] == entry["steps"]
    unread = [u.line for u in parsed.unread]
    prose = [u.line for u in parsed.prose]
    assert unread == entry.get("unread", []), parsed.unread
    assert prose == entry.get("prose", []), parsed.prose
    assert parsed.ignored_after_end == entry.get("after_end", 0)
    assert parsed.ok == (not entry.get("unread"))
    # Nothing is read from a prose line or from a line without a single reading.
    assert not {s.line for s in parsed.steps} & (set(unread) | set(prose))
    if "valid" in entry:
        assert validate_plan(task, parsed).valid == entry["valid"]


def test_corpus_covers_each_shape():
    names = " ".join(e["name"] for e in CORPUS)
    for shape in ("config", "mystery", "call form", "numbering inside", "numbering in",
                  "backslashes", "markers", "bold", "heading", "plan block", "Action",
                  "explanation", "PDDL answer", "restated", "prose", "two readings",
                  "ambiguous"):
        assert shape in names, shape
    assert len(CORPUS) >= 50


BAD_LINES = {"blocks": "stack the orange block under the red block",
             "mystery": "feast object c from object b and object d"}


@pytest.mark.parametrize("entry", [e for e in CORPUS if e["format"] == "planbench"
                                   and e.get("valid") and e["task"] in BAD_LINES],
                         ids=lambda e: e["name"])
def test_a_line_without_one_reading_spoils_any_plan(entry):
    task, parsed = _read(entry)
    lines = entry["text"].splitlines()
    at = parsed.steps[0].line  # after the first step, inside whatever block holds it
    lines.insert(at, BAD_LINES[entry["task"]])
    cfg = TASKS[entry["task"]][1]
    spoiled = parse_plan("\n".join(lines), task, format="planbench", config=cfg)
    assert [u.line for u in spoiled.unread] == [at + 1]
    assert [str(s) for s in spoiled.steps] == entry["steps"] and not spoiled.ok


def test_mixed_corpus_lines_keep_steps_prose_and_unread_apart():
    """Lines of the whole corpus shuffled into new answers: no crash, every
    reported line exists, and no line is both a step and prose or unread."""
    import random

    rng = random.Random(16)
    pool = [line for e in CORPUS for line in e["text"].splitlines()]
    for _ in range(300):
        text = "\n".join(rng.sample(pool, rng.randint(1, 12)))
        for name, (task, cfg) in TASKS.items():
            for parsed in (parse_plan(text, task),
                           parse_plan(text, task, config=cfg),
                           parse_plan(text, task, format="planbench", config=cfg)):
                n = max(1, len(text.splitlines()))
                other = {u.line for u in (*parsed.unread, *parsed.prose)}
                assert all(1 <= x <= n for x in other), name
                assert not {s.line for s in parsed.steps} & other, (name, text)
