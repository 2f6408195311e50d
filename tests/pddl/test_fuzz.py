"""Bad input never crashes the readers: truncated, unbalanced, binary and huge
texts all end in a typed error with a location (or parse)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import ADL_DOMAIN, ADL_PROBLEM, BLOCKS_DOMAIN, blocks_task
from veriplan.errors import PDDLParseError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.planio import PlanBenchConfig, parse_plan

DOMAINS = [BLOCKS_DOMAIN, ADL_DOMAIN]
ADL = parse_domain(ADL_DOMAIN)
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _parse_or_typed_error(fn, *args) -> None:
    try:
        fn(*args)
    except PDDLParseError as exc:
        assert exc.line is not None and exc.col is not None, str(exc)
        assert exc.line >= 1 and exc.col >= 1


@FUZZ
@given(src=st.sampled_from(DOMAINS), cut=st.integers(0, 3000))
def test_truncated_domains(src, cut):
    _parse_or_typed_error(parse_domain, src[:cut])


@FUZZ
@given(src=st.sampled_from(DOMAINS), data=st.data())
def test_mutated_domains(src, data):
    i = data.draw(st.integers(0, len(src)))
    j = data.draw(st.integers(i, min(len(src), i + 20)))
    junk = data.draw(st.text(alphabet="()?-; \n\tabcxyz:=0189\x00\xff", max_size=12))
    _parse_or_typed_error(parse_domain, src[:i] + junk + src[j:])


@FUZZ
@given(cut=st.integers(0, len(ADL_PROBLEM)), junk=st.text(max_size=30))
def test_truncated_and_mutated_problems(cut, junk):
    _parse_or_typed_error(parse_problem, ADL_PROBLEM[:cut] + junk + ADL_PROBLEM[cut:], ADL)


@FUZZ
@given(blob=st.binary(max_size=300))
def test_binary_input(blob):
    _parse_or_typed_error(parse_domain, blob.decode("latin-1"))


@pytest.mark.parametrize("text", [
    "(" * 100_000, ")" * 10, "(define " + "(x " * 50_000 + ")" * 50_000 + ")",
    "(define (domain d) (:predicates (p)) (:action a :parameters () :precondition "
    + "(not " * 5000 + "(p)" + ")" * 5000 + " :effect (p)))",
    "(define (domain big) (:predicates " + " ".join(f"(p{i} ?x)" for i in range(20_000)) + "))",
])
def test_huge_inputs(text):
    _parse_or_typed_error(parse_domain, text)


CFG = PlanBenchConfig.from_dict({
    "actions": {"pick-up": "pick up the {}", "stack": "stack the {} on top of the {}"},
    "encoded_objects": {"b1": "red block", "b2": "blue block"}})


@FUZZ
@given(text=st.text(max_size=400))
def test_plan_readers_never_crash(text):
    task = blocks_task(3)
    for fmt in ("pddl", "planbench"):
        parsed = parse_plan(text, task, format=fmt, config=CFG)
        lines = text.splitlines()
        for u in parsed.unread:
            assert 1 <= u.line <= max(1, len(lines)) and u.reason


@FUZZ
@given(blob=st.binary(max_size=500))
def test_plan_readers_on_binary(blob):
    text = blob.decode("utf-8", errors="replace")
    parse_plan(text, blocks_task(3))
    parse_plan(text, blocks_task(3), format="planbench", config=CFG)


def test_huge_plan_text():
    text = "(pick-up b1)\n(put-down b1)\n" * 50_000 + "garbage line\n"
    parsed = parse_plan(text, blocks_task(3))
    assert len(parsed.steps) == 100_000 and parsed.unread[0].line == 100_001
