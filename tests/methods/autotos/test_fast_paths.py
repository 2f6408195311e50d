"""Issue 36's fast paths of the AutoToS search keep every verdict: the
mutation check's snapshot of a list of plain values (the texts still decide
when anything in it is not the same object), the answer stream read in blocks,
the long-integer test by byte classes, and solutions handed to the caller as
each search ends."""

from __future__ import annotations

import json
import random
import re

import pytest

from veriplan.domains.autotos import get_domain
from veriplan.methods.autotos import Config
from veriplan.methods.autotos.method import check
from veriplan.sandbox import runner

DOMAIN = get_domain("24game")
SUCC, GOAL = DOMAIN.reference_code("succ"), DOMAIN.reference_code("goal")
EXAMPLES = [{"id": "u", "init": [1, 1, 4, 6], "meta": {}}]
FAST = Config(search_limit=5)


def succ_last(line: str) -> str:
    """The reference successor function running ``line`` on its input after
    computing the successors."""
    assert SUCC.count("    return out\n") == 1
    return SUCC.replace("    return out\n", f"    {line}\n    return out\n")


def soundness(succ: str) -> dict | None:
    return check(DOMAIN, "soundness", succ, GOAL, FAST, instances=EXAMPLES)["failure"]


@pytest.mark.parametrize("line", [
    "state[0] = float(state[0])",  # written differently, the same value
    "state.reverse(); state.reverse()",  # changed and changed back
    "state[:] = list(state)",  # the same objects in the same places
], ids=["equal-value", "restored", "same-objects"])
def test_an_input_left_with_the_same_values_is_not_changed(line):
    assert soundness(succ_last(line)) is None


def test_an_input_changed_in_place_is_caught_with_both_states():
    failure = soundness(succ_last("state[0] = state[0] + 100"))
    assert failure is not None and failure["category"] == "input_changed"
    assert failure["evidence"]["before"] == [1, 1, 4, 6]
    assert failure["evidence"]["after"] == [101, 1, 4, 6]


def test_an_input_element_replaced_by_an_equal_value_that_is_not_json_is_caught():
    # Decimal(1) == 1: a comparison of values would pass it; the state is no
    # longer one (it cannot be written), as before the snapshot
    failure = soundness(succ_last("import decimal; state[0] = decimal.Decimal(state[0])"))
    assert failure is not None and failure["category"] == "input_changed"
    assert "not a state" in failure["message"]


def test_an_input_grown_or_replaced_by_another_type_is_caught():
    for line in ("state.append(0)", "state[0] = str(state[0])"):
        failure = soundness(succ_last(line))
        assert failure is not None and failure["category"] == "input_changed", line


# --- the answer stream ----------------------------------------------------------------

def reader() -> runner.Job:
    return runner.Job.reader()  # only the line reading, no process


def parsed(job: runner.Job) -> list:
    """Every line received so far, parsed piece by piece as a reader takes them."""
    while job._pending:
        job._parse_piece()
    return [x if not isinstance(x, runner._Bad) else "bad" for x in job._lines]


def one_by_one(lines: list[bytes]) -> list:
    out = []
    for line in lines:
        try:
            out.append(runner._loads(line))
        except ValueError:
            out.append("bad")
            break
    return out


@pytest.mark.parametrize("text", [
    b'["I",0]\n["X",1,[[1,2.5],[3]]]\n["X",0,[[24]]]\n["E",1,"found"]\n',
    b'["I",0]\n\n["X",1,[[1,2]]]\n\n\n["E",1,"found"]\n',  # empty lines
    b'["I",0]\n["X",1,[[1,2]]\n["E",1,"found"]\n',  # a line that is not JSON
    b'["X",1,[[123456789012345678901234,0.5]]]\n["X",0,[[-12345678901234567890]]]\n',
], ids=["plain", "empty-lines", "malformed", "long-integers"])
@pytest.mark.parametrize("size", [1, 7, 1 << 20])
def test_lines_read_in_blocks_are_the_lines_read_one_by_one(text, size):
    job = reader()
    for i in range(0, len(text), size):
        job._take(text[i:i + size])
    lines = [p for p in text.split(b"\n") if p]
    got = parsed(job)
    expected = one_by_one(lines)  # up to the first line that is not JSON (the reader
    assert got[:len(expected)] == expected  # stops there; later reads may add lines)
    assert job.partial == b""


def test_a_line_cut_short_waits_for_the_rest():
    job = reader()
    job._take(b'["X",1,[[1,2]]]\n["X",0,[[3')
    assert parsed(job) == [["X", 1, [[1, 2]]]] and job.partial == b'["X",0,[[3'
    job._take(b',4]]]\n')
    assert parsed(job)[-1] == ["X", 0, [[3, 4]]] and job.partial == b""


def test_lines_are_parsed_a_piece_at_a_time_in_order():
    many = [["X", i, [[i, 0.5 + i]] * (i % 7)] for i in range(20000)]
    long = ["X", -1, [[k, k / 3] for k in range(20000)]]  # one line longer than a piece
    text = b"".join(json.dumps(x).encode() + b"\n" for x in [*many[:9000], long, *many[9000:]])
    assert len(text) > 20 * runner.PIECE
    job = reader()
    job._take(text)
    assert len(job._pending) == 1 and not job._lines  # nothing parsed before it is needed
    job._parse_piece()
    assert 0 < len(job._lines) < 9000  # one piece
    assert parsed(job) == [*many[:9000], long, *many[9000:]]


def test_the_long_number_test_is_the_regular_expression():
    pattern = re.compile(rb"[\[,:\s-][0-9]{19}").search
    alphabet = b"0123456789" * 6 + b"[,:- \t\n\r\x0b\x0c.e]x\xb2\xd9"
    rng = random.Random(36)
    found = 0
    for _ in range(20000):
        text = bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 50)))
        expected = pattern(text) is not None
        found += expected
        assert runner._long_number(text) == expected, text
    assert found > 100  # the sample has both kinds


def test_long_integers_after_white_space_are_read_exactly():
    for space in (" ", "\t", "\n", "\r"):
        text = f"[1,{space}123456789012345678901234]".encode()
        assert runner._loads(text) == json.loads(text) == [1, 123456789012345678901234]


# --- solutions as they come -----------------------------------------------------------

def test_each_solution_reaches_the_caller_as_its_search_ends():
    instances = [{"id": "a", "init": [1, 1, 4, 6], "meta": {}},
                 {"id": "b", "init": [1, 1, 1, 1], "meta": {}},  # no solution
                 {"id": "c", "init": [4, 6], "meta": {}}]
    seen: list = []
    out = check(DOMAIN, "evaluate", SUCC, GOAL, FAST, checks=True, instances=instances,
                solved=lambda k, r: seen.append((k, r)))
    assert out["failure"] is None
    assert [k for k, _ in seen] == [0, 1, 2]
    assert [r for _, r in seen] == out["results"]
    assert seen[1][1]["path"] is None and seen[2][1]["path"][-1] == [24]


def test_the_reference_run_validates_what_it_solves():
    from veriplan.domains.autotos.base import DomainData, Instance
    from veriplan.methods.autotos.method import evaluate

    data = DomainData(evaluation=[Instance("a", [1, 1, 4, 6]), Instance("b", [4, 6]),
                                  Instance("c", [1, 1, 1, 1])],
                      examples=[], goals=[], non_goals=[], successors=[])
    out = evaluate(DOMAIN, data, SUCC, GOAL, FAST, checks=True, strict=True)
    assert (out["solved"], out["valid"]) == (2, 2)
    assert out["categories"] == {"no_solution": 1}
    # a goal test that accepts a state that is not 24 gives solutions that do not validate
    loose = GOAL.replace("abs(state[0] - 24) < 1e-6", "state[0] > 0")
    out = evaluate(DOMAIN, data, SUCC, loose, FAST, checks=False, strict=True)
    assert out["valid"] < out["solved"] and out["categories"].get("invalid_solution")


def test_results_handed_over_early_are_scrubbed_of_secrets(monkeypatch):
    secret = "sk-fast-path-test-5c1f0a"
    monkeypatch.setenv("SOME_API_KEY", secret)
    seen: list = []
    out = check(DOMAIN, "evaluate", SUCC, GOAL, FAST, checks=True,
                instances=[{"id": f"id-{secret}", "init": [4, 6], "meta": {}}],
                solved=lambda k, r: seen.append(r))
    assert secret not in json.dumps(out) and secret not in json.dumps(seen)
    assert seen and seen[0]["path"][-1] == [24]
