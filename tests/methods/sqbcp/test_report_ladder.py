"""Issue 33: the controlled SQ-BCP report keeps the ablation ladder's rungs
(``ablation=cot``, ``ablation=question_generation``, Table 2) apart from the
full method: a rung's units run under the method name ``sqbcp`` too, and
pooled with it they would change SQ-BCP's row."""

from __future__ import annotations

import json

from veriplan.bench.store import UnitRecord
from veriplan.methods.sqbcp.report import controlled_by_k, controlled_pairs, controlled_rows


def unit(i: int, ablation: str, *, violated: bool) -> UnitRecord:
    verdict = "invalid" if violated else "valid"
    metrics = {"violated": violated, "no_plan": False, "verdict": verdict,
               "judgement": {"verdict": verdict, "scope": "hidden_task", "findings": []}}
    config = {"k": 1} if ablation == "none" else {"k": 1, "ablation": ablation}
    return UnitRecord(f"u{ablation}{i}", "sqbcp", "sqbcp_recipes", f"t{i}", "controlled",
                      "sqbcp:p_hidden=0.2,acc=0.5,seed=0", json.dumps(config), 0, "done",
                      not violated, "llm", 1, 10, None, 1.0, None, None,
                      json.dumps({"metrics": metrics}), "0", "0", float(i))


# The full method violates on no task, the CoT rung on all four, the next rung on one.
RECORDS = ([unit(i, "none", violated=False) for i in range(4)]
           + [unit(i, "cot", violated=True) for i in range(4)]
           + [unit(i, "question_generation", violated=i == 0) for i in range(4)])


def test_each_rung_is_its_own_row():
    rows = {r.method: r for r in controlled_rows(RECORDS)}
    assert set(rows) == {"sqbcp", "sqbcp (cot)", "sqbcp (question_generation)"}
    assert [(rows[m].units, rows[m].violated) for m in
            ("sqbcp", "sqbcp (cot)", "sqbcp (question_generation)")] == [(4, 0), (4, 4), (4, 1)]
    assert {(r.method, r.k) for r in controlled_by_k(RECORDS)} == {
        ("sqbcp", 1), ("sqbcp (cot)", 1), ("sqbcp (question_generation)", 1)}


def test_the_full_method_is_paired_with_each_rung():
    by_b = {p.b: p for p in controlled_pairs(RECORDS) if p.a == "sqbcp"}
    assert by_b["sqbcp (cot)"].violated.only_b == 4
    assert by_b["sqbcp (question_generation)"].violated.only_b == 1
