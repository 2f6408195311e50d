"""The hidden-precondition report's rates: over all units, and over the units
that produced a plan (planning nothing is not avoiding a violation)."""

from __future__ import annotations

import json

from veriplan.bench.report_hidden import rows
from veriplan.bench.store import UnitRecord


def unit(i: int, *, violated: bool, no_plan: bool) -> UnitRecord:
    metrics = {"violated": violated, "no_plan": no_plan, "violations": ["x"] if violated else []}
    return UnitRecord(f"u{i}", "m", "sqbcp_recipes", f"t{i}", "scripted", "s", '{"k":1}', 0,
                      "done", not violated and not no_plan, "llm" if not no_plan else None,
                      1, 10, None, 1.0, None, None, json.dumps({"metrics": metrics}), "0", "0",
                      float(i))


def test_the_rate_among_plans_leaves_out_units_without_one():
    recs = [unit(0, violated=True, no_plan=False), unit(1, violated=False, no_plan=False)] + \
           [unit(i, violated=False, no_plan=True) for i in range(2, 10)]
    (r,) = rows(recs)
    assert (r["units"], r["violated"], r["no_plan"], r["planned"]) == (10, 1, 8, 2)
    assert r["violation_rate"] == 0.1 and r["violation_rate_planned"] == 0.5
    lo, hi = r["wilson_planned"]
    assert lo < 0.5 < hi and hi - lo > r["wilson"][1] - r["wilson"][0]


def test_no_plan_at_all_has_no_rate_among_plans():
    (r,) = rows([unit(i, violated=False, no_plan=True) for i in range(3)])
    assert r["planned"] == 0 and r["violation_rate_planned"] is None
