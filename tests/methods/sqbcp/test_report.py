"""The hidden-precondition report's rates: over all units, and over the units
that produced a plan (planning nothing is not avoiding a violation)."""

from __future__ import annotations

import json

import pytest

from veriplan.bench.store import UnitRecord
from veriplan.domains.hidden.metrics import judgement
from veriplan.errors import RecordError
from veriplan.methods.sqbcp.report import rows, section, stale


def unit(i: int, *, violated: bool, no_plan: bool, judged: bool = True,
         verdict: str | None = None) -> UnitRecord:
    metrics = {"violated": violated, "no_plan": no_plan, "violations": ["x"] if violated else []}
    verdict = verdict or ("invalid" if violated or no_plan else "valid")
    if judged:
        metrics["verdict"] = verdict
        metrics["judgement"] = {"verdict": verdict, "scope": "hidden_task", "findings": []}
    verified = verdict == "valid" and not no_plan
    return UnitRecord(f"u{i}", "m", "sqbcp_recipes", f"t{i}", "scripted", "s", '{"k":1}', 0,
                      "done", verified, "llm" if not no_plan else None,
                      1, 10, None, 1.0, None, None, json.dumps({"metrics": metrics}), "0", "0",
                      float(i))


def test_the_rate_among_plans_leaves_out_units_without_one():
    recs = [unit(0, violated=True, no_plan=False), unit(1, violated=False, no_plan=False)] + \
           [unit(i, violated=False, no_plan=True) for i in range(2, 10)]
    (r,) = rows(recs)
    assert (r.units, r.violated, r.no_plan, r.planned) == (10, 1, 8, 2)
    assert r.violation_rate == 0.1 and r.violation_rate_planned == 0.5
    lo, hi = r.wilson_planned
    assert lo < 0.5 < hi and hi - lo > r.wilson[1] - r.wilson[0]


def test_no_plan_at_all_has_no_rate_among_plans():
    (r,) = rows([unit(i, violated=False, no_plan=True) for i in range(3)])
    assert r.planned == 0 and r.violation_rate_planned is None


def test_a_unit_judged_before_verdicts_were_typed_is_named_and_never_counted(tmp_path):
    """A stored unit without metrics.judgement (the old decider, which passed any
    plan naming no missing item) is left out of every figure, named with the
    field, and its stored "verified" is not counted (issue 30)."""
    old = unit(7, violated=False, no_plan=False, judged=False)
    assert old.verified  # what the old decider stored
    recs = [old, unit(1, violated=False, no_plan=False),
            unit(2, violated=False, no_plan=False, verdict="unknown")]
    (r,) = rows(recs)
    assert (r.units, r.verified, r.unknown) == (2, 1, 1)
    (why,) = stale(recs)
    assert "unit u7" in why and "metrics.judgement" in why
    text, _, _ = section(recs, tmp_path)
    assert "1 unit(s) left out" in text and "unit u7" in text
    with pytest.raises(RecordError, match="metrics.judgement"):
        judgement({"violated": False}, record="unit u7")
