"""The report's controlled-model section for AEC (issue 33): controlled
episodes apart from model results, success with Wilson intervals, queries
per episode over all iterations, and AEC against Query-Only paired on
queries."""

from __future__ import annotations

import json
from dataclasses import dataclass

from veriplan.methods.aec import report_controlled as report_aec_controlled
from veriplan.methods.aec import report_episodes as report_aec_episodes
from veriplan.methods.aec.report_episodes import Episode


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


def ep(method, backend, instance, won, queries, config=None, iters=None, model="aec:p=0.4",
       replans=0):
    m = {"queries": queries, "totals": {"queries": queries}, "replanning_rounds": replans}
    if iters:
        m["success_by_iteration"] = iters
    return Episode(Rec(method, json.dumps(config or {}), backend, model, instance), won,
                   "household", "pick_and_place", "eval", m)


def test_controlled_episodes_get_their_own_section(tmp_path):
    eps = [ep("aec", "controlled-aec", f"g{i}", True, 2) for i in range(4)]
    eps += [ep("query-only", "controlled-aec", f"g{i}", i < 3, 5) for i in range(4)]
    eps += [ep("aec", "llamacpp", "g0", False, 1)]
    assert [report_aec_episodes.controlled(e) for e in eps].count(True) == 8
    lines, data, _ = report_aec_controlled.controlled_section([e for e in eps if
                                                    report_aec_episodes.controlled(e)], tmp_path)
    text = "\n".join(lines)
    assert "Controlled-model results" in text and "llamacpp" not in text
    aec = next(r for r in data["rows"] if r["method"] == "aec")
    assert aec["won"] == 4 and aec["queries"] == 2.0 and abs(aec["wilson"][1] - 1) < 1e-9
    (q,) = data["query_pairs"]
    assert q["shared"] == 4 and q["diff"] == -3.0 and (q["a_won"], q["b_won"]) == (4, 3)


def test_the_iteration_curve_of_controlled_runs(tmp_path):
    eps = [ep("aec", "controlled-aec", f"g{i}", i < 3, 1, {"iterations": 3},
              [False, i < 2, i < 3][: 3]) for i in range(4)]
    _, data, plots = report_aec_controlled.controlled_section(eps, tmp_path)
    (row,) = data["iterations"]
    assert row["success_by_iteration"] == [0.0, 0.5, 0.75]
    assert plots == ["aec_controlled_iterations.png"]


def test_the_sweep_file_names_registered_methods_and_valid_settings():
    import tomllib

    from veriplan.methods import get_method
    from veriplan.methods.aec.controlled_model import Settings

    sweep = tomllib.loads(get_method("aec").sweep_files()["aec_controlled"].read_text())
    for name in sweep["methods"]:
        get_method(name)
    for cfg in sweep["configs"]:
        options = {k: str(v).lower() if isinstance(v, bool) else str(v)
                   for k, v in cfg.items() if k != "method"}
        get_method(cfg["method"]).make_config(options)
    for m in sweep["models"]:
        assert m["backend"] == "controlled-aec"
        Settings.parse(m["model"])


def test_a_baseline_without_a_predictor_pairs_with_every_predictor_of_its_planner():
    """Query-Only ran once per planner (p, g, seed); AEC under each predictor
    setting of that planner is paired with it, never across planners."""
    eps = [ep("aec", "controlled-aec", f"g{i}", True, 2, model=f"aec:p=0.4,g=0.2,acc={a}")
           for i in range(3) for a in ("0.7", "0.9")]
    eps += [ep("query-only", "controlled-aec", f"g{i}", True, 4,
               model="aec:p=0.4,g=0.2,acc=0.9") for i in range(3)]
    eps += [ep("query-only", "controlled-aec", f"g{i}", False, 9, model="aec:p=0.6,g=0.2")
            for i in range(3)]
    qp = report_aec_controlled.query_pairs(eps)
    assert sorted(q.model for q in qp) == ["controlled-aec:aec:p=0.4,g=0.2,acc=0.7",
                                              "controlled-aec:aec:p=0.4,g=0.2,acc=0.9"]
    assert all(q.diff == -2.0 and q.b_won == 3 for q in qp)
    pairs = [r for r in report_aec_episodes.paired(eps) if r.b.startswith("query-only")]
    assert len(pairs) == 2 and all(r.b_model.endswith("acc=0.9") for r in pairs)
    assert report_aec_episodes.planner_of("controlled-aec:aec:p=0.4,acc=0.7,conf=over,seed=1") == \
        "controlled-aec:aec:p=0.4,seed=1"


def test_the_ablations_and_the_p_axis_get_their_tables_and_plots(tmp_path):
    eps = []
    for p_ in ("0.0", "0.4"):
        model = f"aec:p={p_},g=0.2,acc=0.9"
        eps += [ep("aec", "controlled-aec", f"g{i}", True, 2, {"tau": 0.2}, model=model)
                for i in range(4)]
        eps += [ep("aec", "controlled-aec", f"g{i}", i < 2, 1, {"verification": False},
                   model=model, replans=3) for i in range(4)]
    lines, data, plots = report_aec_controlled.controlled_section(eps, tmp_path)
    (abl, _) = data["ablations"]
    assert [a["arm"] for a in abl["arms"]] == ["AEC", "without V"]
    assert abl["arms"][1]["failure"] == 0.5 and abl["arms"][1]["replans"] == 3
    axis = {r["config"]: r for r in data["p_axis"]}
    assert axis["verification=False"]["p"] == [0.0, 0.4]
    assert axis["tau=0.2"]["success"] == [1.0, 1.0]
    assert plots == ["aec_controlled_ablation.png", "aec_controlled_p.png"]
    assert all((tmp_path / name).exists() for name in plots)
