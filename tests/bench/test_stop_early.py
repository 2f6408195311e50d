"""A sweep stops when its first units all fail the same way, and only then:
errors that differ, a unit that ends otherwise among the first, or
``stop_after=0`` let it run to the end."""

from __future__ import annotations

import pytest

from veriplan.bench.runner import SweepStoppedError, run_sweep, same_way
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.errors import BackendError
from veriplan.llm import LLM
from veriplan.llm.backends.scripted import ScriptedBackend

SPEC = BackendSpec.of("scripted")


def sweep(tmp_path, data_dir, backend: ScriptedBackend, **kw):
    plan = SweepPlan(["direct"], ["blocksworld_3"], [SPEC], [{"prompt": "pddl"}], [0], 5)
    return run_sweep(plan, tmp_path, data_root=data_dir, llms={SPEC: LLM(backend)}, **kw)


def unknown_model(request) -> str:
    raise BackendError("model m is unknown")


def test_the_first_three_failing_alike_stop_the_sweep(tmp_path, data_dir):
    backend = ScriptedBackend(fn=unknown_model)
    with pytest.raises(SweepStoppedError) as info:
        sweep(tmp_path, data_dir, backend)
    assert (info.value.units, info.value.category, info.value.reason) == (
        3, "backend:BackendError", "model m is unknown")
    assert info.value.progress.errors == 3 and info.value.progress.total == 5
    assert len(list(RunStore(tmp_path).records())) == 3


def test_errors_that_differ_do_not_stop_it(tmp_path, data_dir):
    backend = ScriptedBackend([BackendError(f"error {i}") for i in range(5)])
    p = sweep(tmp_path, data_dir, backend)
    assert p.errors == 5 and p.first_error == ("backend:BackendError", "error 0")


def test_stop_after_zero_never_stops(tmp_path, data_dir):
    backend = ScriptedBackend([BackendError("same")] * 5)
    assert sweep(tmp_path, data_dir, backend, stop_after=0).errors == 5


def test_a_unit_that_ends_otherwise_among_the_first_keeps_it_going(tmp_path, data_dir):
    same = BackendError("same")
    backend = ScriptedBackend([same, "(pick-up a)\n[PLAN END]", same, same, same])
    p = sweep(tmp_path, data_dir, backend)
    assert (p.done, p.errors, p.failed) == (5, 4, 1)


def test_same_way():
    a, b = ("backend:X", "down"), ("backend:X", "other")
    assert same_way([a, a, a], 3) == a
    assert same_way([a, a, a, None], 3) == a
    assert same_way([a, a], 3) is None  # not yet three
    assert same_way([a, b, a], 3) is None and same_way([None, a, a], 3) is None
    assert same_way([a, a, a], 0) is None
