"""The controlled SQ-BCP study by k (issue 33: the paper averages k = 1..4;
the main table pools them): per (family, setting, method, k) counts with
Wilson intervals, SQ-BCP beside Self-Ask in a table, and a plot."""

from __future__ import annotations

import json

from veriplan.bench.store import UnitRecord
from veriplan.methods.sqbcp.report import controlled_by_k, controlled_section


def unit(i: int, method: str, k: int, *, violated: bool, verified: bool) -> UnitRecord:
    verdict = "valid" if verified else "invalid"
    metrics = {"violated": violated, "no_plan": False, "verdict": verdict,
               "judgement": {"verdict": verdict, "scope": "hidden_task", "findings": []}}
    return UnitRecord(f"u{method}{k}{i}", method, "sqbcp_recipes", f"t{i}", "controlled",
                      "sqbcp:p_hidden=0.2,acc=0.5,seed=0", json.dumps({"k": k}), 0, "done",
                      verified, "llm", 1, 10, None, 1.0, None, None,
                      json.dumps({"metrics": metrics}), "0", "0", float(i))


RECORDS = [unit(i, m, k, violated=(m == "self-ask" and i < k), verified=i >= k)
           for m in ("sqbcp", "self-ask") for k in (1, 2, 3, 4) for i in range(5)]


def test_counts_by_k():
    rows = {(r.method, r.k): r for r in controlled_by_k(RECORDS)}
    assert len(rows) == 8
    assert (rows[("sqbcp", 3)].violated, rows[("sqbcp", 3)].verified) == (0, 2)
    assert (rows[("self-ask", 3)].violated, rows[("self-ask", 3)].units) == (3, 5)
    lo, hi = rows[("self-ask", 4)].wilson
    assert lo < 0.8 < hi


def test_the_section_shows_sqbcp_beside_self_ask_at_each_k(tmp_path):
    text, plots = controlled_section(RECORDS, tmp_path)
    assert "| sqbcp_recipes | p=0.2, acc=0.5 | 2 | 0/5 (0-43%) | 3/5" in text
    assert "controlled_sqbcp_by_k.png" in plots
    assert (tmp_path / "controlled_sqbcp_by_k.png").exists()
