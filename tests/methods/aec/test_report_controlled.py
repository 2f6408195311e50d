"""The report's controlled-model section for AEC (issue 33): controlled
episodes apart from model results, success with Wilson intervals, queries
per episode over all iterations, and AEC against Query-Only paired on
queries."""

from __future__ import annotations

import json
from dataclasses import dataclass

from veriplan.bench import report_aec
from veriplan.bench.report_aec import Episode


@dataclass
class Rec:
    method: str
    config: str
    backend: str
    model: str
    instance: str
    dataset: str = "household_eval"
    seed: int = 0
    status: str = "done"

    def result_dict(self):
        return {}


def ep(method, backend, instance, won, queries, config=None, iters=None):
    m = {"queries": queries, "totals": {"queries": queries}}
    if iters:
        m["success_by_iteration"] = iters
    return Episode(Rec(method, json.dumps(config or {}), backend, "aec:p=0.4", instance), won,
                   "household", "pick_and_place", "eval", m)


def test_controlled_episodes_get_their_own_section(tmp_path):
    eps = [ep("aec", "controlled-aec", f"g{i}", True, 2) for i in range(4)]
    eps += [ep("query-only", "controlled-aec", f"g{i}", i < 3, 5) for i in range(4)]
    eps += [ep("aec", "llamacpp", "g0", False, 1)]
    assert [report_aec.controlled(e) for e in eps].count(True) == 8
    lines, data, _ = report_aec.controlled_section([e for e in eps if
                                                    report_aec.controlled(e)], tmp_path)
    text = "\n".join(lines)
    assert "Controlled-model results" in text and "llamacpp" not in text
    aec = next(r for r in data["rows"] if r["method"] == "aec")
    assert aec["won"] == 4 and aec["queries"] == 2.0 and abs(aec["wilson"][1] - 1) < 1e-9
    (q,) = data["query_pairs"]
    assert q["shared"] == 4 and q["diff"] == -3.0 and (q["a_won"], q["b_won"]) == (4, 3)


def test_the_iteration_curve_of_controlled_runs(tmp_path):
    eps = [ep("aec", "controlled-aec", f"g{i}", i < 3, 1, {"iterations": 3},
              [False, i < 2, i < 3][: 3]) for i in range(4)]
    _, data, plots = report_aec.controlled_section(eps, tmp_path)
    (row,) = data["iterations"]
    assert row["success_by_iteration"] == [0.0, 0.5, 0.75]
    assert plots == ["aec_controlled_iterations.png"]


def test_the_sweep_file_names_registered_methods_and_valid_settings():
    import tomllib
    from pathlib import Path

    from veriplan.llm.backends.controlled_aec import Settings
    from veriplan.methods import get_method

    sweep = tomllib.loads((Path(__file__).parents[3] / "benchmarks" / "sweeps"
                           / "aec_controlled.toml").read_text())
    for name in sweep["methods"]:
        get_method(name)
    for cfg in sweep["configs"]:
        options = {k: str(v).lower() if isinstance(v, bool) else str(v)
                   for k, v in cfg.items() if k != "method"}
        get_method(cfg["method"]).make_config(options)
    for m in sweep["models"]:
        assert m["backend"] == "controlled-aec"
        Settings.parse(m["model"])
