"""The report's Figure 3 rows with what refinement had to learn from (issue
33): per group run with ``iterations`` > 1, the episodes that failed their
first pass and ran again, whether a later pass won, passes that repeated the
one before, and the labelled predictions, counterexamples and rules each
failed episode gave refinement; and the ScienceWorld sweep file behind them."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field

from veriplan.methods.aec import SWEEPS
from veriplan.methods.aec import report_controlled as report_aec_controlled
from veriplan.methods.aec import report_iterations as report_aec_iterations
from veriplan.methods.aec.report_episodes import Episode

SWEEP = SWEEPS / "aec_controlled_scienceworld_iterations.toml"


@dataclass
class Rec:
    method: str
    config: str
    model: str
    instance: str
    transcript: list[dict[str, object]] = field(default_factory=list)
    backend: str = "controlled-aec"
    dataset: str = "scienceworld_unseen_short"
    seed: int = 0
    status: str = "done"

    def result_dict(self):
        return {"transcript": self.transcript}


def _pass(won, failure="replan_cap", replans=10, queries=0, steps=15):
    return {"won": won, "failure": None if won else failure, "replans": replans,
            "queries": queries, "env_steps": steps}


def ep(method, instance, passes, *, samples=0, counterexamples=0, disables=0, rules=0,
       iterations=3, model="aec:p=0.4,g=0.2,acc=0.7,conf=over,seed=0"):
    """An episode that ran ``passes`` (its last one decides whether it won)."""
    won = bool(passes[-1]["won"])
    sbi = [any(p["won"] for p in passes[: i + 1]) for i in range(iterations)]
    metrics = {"iterations": iterations, "iteration": len(passes) - 1,
               "success_by_iteration": sbi, "per_iteration": passes,
               "calibration_samples": samples, "rule_disables": disables,
               "counterexamples": [{"rule": "r"}] * counterexamples,
               "queries": 0, "totals": {"queries": 0}, "score": 100.0 if won else 25.0}
    transcript = [{"role": "rule", "ok": True}] * rules + [{"role": "act", "ok": True}]
    rec = Rec(method, json.dumps({"iterations": iterations}), model, instance, transcript)
    return Episode(rec, won, "scienceworld", instance.rpartition(":")[0], "unseen", metrics)


def _episodes():
    """WALL-E stand-in: one episode won at once, one that failed the same way
    three times (nothing learned), one won on its second pass after learning
    two rules from refuted predictions; AEC: one won at once, one that failed
    three times, its second pass with other counts than its first and its third
    the same as its second (labelled predictions, a counterexample, a disabled
    rule), and lost."""
    same = _pass(False)
    walle = [ep("walle-standin", "find-plant:1", [_pass(True, replans=0)]),
             ep("walle-standin", "lifespan:96", [same, same, same]),
             ep("walle-standin", "boil:3", [_pass(False), _pass(True, replans=2)], rules=2)]
    aec = [ep("aec", "find-plant:1", [_pass(True, replans=0)]),
           ep("aec", "boil:3", [_pass(False, queries=2), _pass(False, queries=1),
                                _pass(False, queries=1)],
              samples=3, counterexamples=1, disables=1)]
    return walle + aec


def test_refinement_counts_what_each_failed_episode_gave():
    rows = {r.method: r for r in report_aec_iterations.refinement(_episodes())}
    walle, aec = rows["walle-standin"], rows["aec"]
    assert (walle.units, walle.iterated, walle.recovered) == (3, 2, 1)
    # lifespan ran two more passes, both the same as the one before; boil one, not the same
    assert (walle.reruns, walle.repeated) == (3, 2)
    assert (walle.rules_learned, walle.labelled, walle.counterexamples) == (2, 0, 0)
    assert (aec.iterated, aec.recovered, aec.reruns, aec.repeated) == (1, 0, 2, 1)
    assert (aec.labelled, aec.counterexamples, aec.rules_disabled, aec.rules_learned) == (
        3, 1, 1, 0)
    # a won first pass gives refinement nothing and is not counted as iterated
    assert report_aec_iterations.refinement([_episodes()[0], _episodes()[3]])[0].iterated == 0


def test_the_curve_and_the_refinement_table_in_the_controlled_section(tmp_path):
    lines, data, plots = report_aec_controlled.controlled_section(_episodes(), tmp_path)
    text = "\n".join(lines)
    curves = {r["method"]: r["success_by_iteration"] for r in data["iterations"]}
    assert curves["walle-standin"] == [1 / 3, 2 / 3, 2 / 3]
    assert "What refinement had to learn from" in text
    assert ("| walle-standin | iterations=3 | controlled-aec:aec:p=0.4,g=0.2,acc=0.7,"
            "conf=over,seed=0 | scienceworld_unseen_short | 3 | 2 | 1 | 3 | 2 | 0 | 0 | 0 | "
            "2 |") in text
    assert [r["method"] for r in data["refinement"]] == ["aec", "walle-standin"]
    assert "aec_controlled_iterations.png" in plots
    assert (tmp_path / "aec_controlled_iterations.png").is_file()


def test_the_iteration_sweep_file_runs_overconfident_predictors_and_three_passes():
    from veriplan.bench.units import load_matrix
    from veriplan.methods import get_method
    from veriplan.methods.aec.controlled_model import Settings

    plan = load_matrix(SWEEP)
    assert plan.datasets == ["scienceworld_unseen_short"]
    for name in plan.methods:
        get_method(name)
    for cfg in tomllib.loads(SWEEP.read_text())["configs"]:
        options = {k: str(v) for k, v in cfg.items() if k != "method"}
        get_method(cfg["method"]).make_config(options)
    settings = [Settings.parse(b.model) for b in plan.backends]
    assert {b.name for b in plan.backends} == {"controlled-aec"}
    assert {s.conf for s in settings} == {"over"} and {(s.p, s.g) for s in settings} == {
        (0.4, 0.2)}  # the first ScienceWorld study's planner: only the predictor changed
    assert {c["iterations"] for c in plan.configs_for("walle-standin")} == {3}
    assert {"iterations": 3} in plan.configs_for("aec")
