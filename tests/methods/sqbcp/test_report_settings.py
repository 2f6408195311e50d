"""A method run at two settings on the same tasks (here CoT with and without the
oracle round) is two arms in the hidden-task report: its rows and its pairs with
SQ-BCP keep them apart, and neither overwrites the other's units."""

from __future__ import annotations

import json

from veriplan.bench.store import UnitRecord
from veriplan.methods.sqbcp.report import controlled_pairs, controlled_rows, pairs, rows


def unit(i: int, method: str, config: dict, *, violated: bool, backend: str) -> UnitRecord:
    verdict = "invalid" if violated else "valid"
    metrics = {"violated": violated, "no_plan": False, "verdict": verdict,
               "judgement": {"verdict": verdict, "scope": "hidden_task", "findings": []}}
    model = "sqbcp:p_hidden=0.2,acc=0.5,seed=0" if backend == "controlled" else "m"
    return UnitRecord(f"u{method}{json.dumps(config)}{i}", method, "sqbcp_recipes", f"t{i}",
                      backend, model, json.dumps(config), 0, "done", not violated, "llm", 1,
                      10, None, 1.0, None, None, json.dumps({"metrics": metrics}), "0", "0",
                      float(i))


def records(backend: str) -> list[UnitRecord]:
    # SQ-BCP violates on no task; CoT with the oracle round on task 0 only, without
    # it on all four (stored after, so a pooled arm would keep these)
    return ([unit(i, "sqbcp", {"k": 1}, violated=False, backend=backend) for i in range(4)]
            + [unit(i, "hidden-cot", {"k": 1, "oracle": True}, violated=i == 0,
                    backend=backend) for i in range(4)]
            + [unit(i, "hidden-cot", {"k": 1, "oracle": False}, violated=True,
                    backend=backend) for i in range(4)])


def test_a_real_models_rows_and_pairs_keep_the_settings_apart():
    recs = records("embedded")
    by_method = {r.method: r for r in rows(recs)}
    assert by_method["hidden-cot [oracle=True]"].violated == 1
    assert by_method["hidden-cot [oracle=False]"].violated == 4
    by_b = {p.b: p.violated.only_b for p in pairs(recs) if p.a == "sqbcp"}
    assert by_b == {"hidden-cot [oracle=True]": 1, "hidden-cot [oracle=False]": 4}


def test_a_controlled_models_rows_and_pairs_keep_the_settings_apart():
    recs = records("controlled")
    by_method = {r.method: r for r in controlled_rows(recs)}
    assert (by_method["hidden-cot [oracle=True]"].units,
            by_method["hidden-cot [oracle=True]"].violated) == (4, 1)
    assert by_method["hidden-cot [oracle=False]"].violated == 4
    by_b = {p.b: p.violated.only_b for p in controlled_pairs(recs) if p.a == "sqbcp"}
    assert by_b == {"hidden-cot [oracle=True]": 1, "hidden-cot [oracle=False]": 4}
