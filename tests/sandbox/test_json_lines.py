"""The sandbox's answer lines are JSON written and read fast (orjson where it
is installed) with the same values the standard library gives: what orjson
writes or reads differently goes through the standard library."""

from __future__ import annotations

import json
import math

import pytest

from veriplan.domains.autotos.harness import _encoder
from veriplan.sandbox.runner import _loads

VALUES = [[1, 2.5, 13], [[3.5, 13], [1, 15.5]], {"at-player": [1, 2], "at-stone": [[3, 4]]},
          (1, 2), [2**70, -(2**63) - 1], {1: "a"}, [True, None, "é", "\u2603"], [1e16, -0.0],
          ["x" * 3, {"nested": [[[]]]}]]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_encoder_writes_what_the_standard_library_reads_back(value):
    text = _encoder()(value)
    assert isinstance(text, bytes)
    assert json.loads(text) == json.loads(json.dumps(value))
    assert _loads(text) == json.loads(json.dumps(value))


def test_special_floats_keep_the_standard_library_spelling():
    text = _encoder()([math.inf, -math.inf])
    assert text == b"[Infinity,-Infinity]"  # orjson would write null
    assert _loads(b"[Infinity]") == [math.inf] and math.isnan(_loads(b"[NaN]")[0])


def test_long_integers_are_read_exactly():
    # orjson reads integers past 64 bits as floats: such text goes to json
    big = [123456789012345678901234567890, -9223372036854775809]
    assert _loads(json.dumps(big).encode()) == big
    assert all(type(x) is int for x in _loads(json.dumps(big).encode()))
    assert _loads(b'{"k":[1234567890123456789012]}') == {"k": [1234567890123456789012]}
    assert _loads(b"12345678901234567890123") == 12345678901234567890123
    assert _loads(b"[ -12345678901234567890123]") == [-12345678901234567890123]


def test_small_floats_with_many_digits_are_read_by_the_fast_reader(monkeypatch):
    from veriplan.sandbox import runner

    if runner._fast_loads is None:
        pytest.skip("orjson is not installed")
    monkeypatch.setattr(runner.json, "loads", None)  # the fallback would fail
    assert _loads(b"[0.0023148148148148147,[1.0000000000000002e-20]]") == [
        0.0023148148148148147, [1.0000000000000002e-20]]


def test_values_that_are_not_json_are_refused():
    with pytest.raises((TypeError, ValueError)):
        _encoder()([{1, 2}])
