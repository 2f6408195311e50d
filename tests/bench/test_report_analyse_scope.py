"""The report's analyses (runtime, failures, retry curve) take the units of one
summary row: rows are split by scope, so units verified against different things
are never pooled in the analyses either."""

from __future__ import annotations

import json

from veriplan.bench.report import analyse, summarize
from veriplan.bench.store import UnitRecord
from veriplan.core.verdict import Scope


def _unit(i: int, scope: Scope, seconds: float) -> UnitRecord:
    return UnitRecord(
        id=f"u{i}", method="drip", dataset="blocks", instance=f"i{i}", backend="scripted",
        model="s", config="{}", seed=0, status="done", verified=True, solved_by="llm",
        llm_calls=1, tokens=10, cost=None, seconds=seconds, error_category=None, error=None,
        result=json.dumps({"plan": ["(a)"]}), veriplan_version="0", dataset_version="0",
        finished=float(i), scope=scope)


def test_each_scope_row_gets_only_its_own_units_analysed():
    units = ([_unit(i, Scope.PLAN_ON_TASK, 1.0) for i in range(4)]
             + [_unit(10 + i, Scope.PLAN_IN_METHOD_SPACE, 100.0) for i in range(3)])
    summaries = summarize(units)
    assert sorted(s.scope for s in summaries) == sorted(
        [Scope.PLAN_ON_TASK, Scope.PLAN_IN_METHOD_SPACE])
    by_scope = {s.scope: a for s, a in zip(summaries, analyse(units, summaries))}
    # each row's runtime is its own units' (1 s on the task, 100 s in the method's
    # space), not the 7 units pooled
    assert by_scope[Scope.PLAN_ON_TASK]["runtime"]["p50"] == 1.0
    assert by_scope[Scope.PLAN_IN_METHOD_SPACE]["runtime"]["p50"] == 100.0
