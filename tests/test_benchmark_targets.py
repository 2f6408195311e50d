"""``benchmarks/targets.py``: a speed target is met only when every ratio measured
reaches it, on every measure named."""

from __future__ import annotations

import doctest
import importlib
import math
from types import ModuleType

import pytest

from tests.conftest import REPO


@pytest.fixture(scope="module")
def targets() -> ModuleType:
    import sys

    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        return importlib.import_module("targets")
    finally:
        sys.path.remove(str(REPO / "benchmarks"))


def test_met_needs_every_ratio_of_every_measure_at_the_target(targets):
    t = targets.Target("VAL per problem / --batch", 10)
    assert t.met({"wall": [10.0, 42.8], "CPU": [10.0]})  # exactly the target is met
    assert not t.met({"wall": [42.8, 39.3], "CPU": [23.4, 9.99]})  # one order short
    assert not t.met({"wall": [42.8], "CPU": []})  # a measure with nothing measured
    assert not t.met({})
    assert t.verdict({"wall": [12.0]}) == "met"
    assert t.verdict({"wall": [9.0]}) == "not met"


def test_line_gives_each_measure_its_range_and_the_verdict(targets):
    t = targets.Target("the peer's time / veriplan's", 5)
    assert t.line({"wall": [2.17, 2.96, 2.5], "CPU": [2.23]}) == (
        "the peer's time / veriplan's >= 5x: wall 2.17-2.96x, CPU 2.23x: not met")
    assert t.line({"wall": [5.0, 7.0]}) == (
        "the peer's time / veriplan's >= 5x: wall 5.00-7.00x: met")
    assert targets.span([9.996]) == "10.00x"  # rounded for show only:
    assert not t.met({"wall": [4.996]})  # the verdict is on the ratio itself
    assert targets.span([1.234, 1.2341]) == "1.23x"
    assert targets.span([]) == "none"


@pytest.mark.parametrize("least", [0, -1, math.nan, math.inf])
def test_a_target_that_cannot_be_a_ratio_is_refused(targets, least):
    with pytest.raises(ValueError, match="least must be a positive number"):
        targets.Target("x", least)


def test_the_module_example_holds(targets):
    assert doctest.testmod(targets).failed == 0
