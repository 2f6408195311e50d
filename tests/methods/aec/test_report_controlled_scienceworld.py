"""The report's controlled-model section on ScienceWorld (issue 33): episodes
split by whether the task text names the focus target (what AEC's V can check
there), the ablations kept apart per dataset, and the success-against-queries
plot."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from veriplan.methods.aec import report_controlled as report_aec_controlled
from veriplan.methods.aec import report_episodes as report_aec_episodes
from veriplan.methods.aec.report_episodes import Episode

NAMED = "Your task is to turn on the electric buzzer. First, focus on the electric buzzer."
UNNAMED = "Your task is to find a(n) animal. First, focus on the thing. Then, move it."
MODEL = "aec:p=0.4,g=0.2,acc=0.9,conf=calibrated,seed=0"


@dataclass
class Rec:
    method: str
    config: str
    instance: str
    dataset: str
    task: str
    backend: str = "controlled-aec"
    model: str = MODEL
    seed: int = 0
    status: str = "done"
    extra: dict = field(default_factory=dict)

    def result_dict(self):
        return {"transcript": [{"role": "hypotheses",
                                "prompt": f"You act...\nYour task: {self.task}\n\nWhat has"}]}


def ep(method, instance, won, score, *, task=NAMED, config=None, dataset="scienceworld_x",
       env="scienceworld", queries=0):
    m = {"queries": queries, "totals": {"queries": queries}, "score": score,
         "replanning_rounds": 0 if won else 10}
    return Episode(Rec(method, json.dumps(config or {}), instance, dataset, task), won, env,
                   instance.rpartition(":")[0], "unseen", m)


def test_scienceworld_episodes_are_split_by_whether_the_text_names_the_target(tmp_path):
    eps = [ep("aec", "power-component:16", True, 100),
           ep("aec", "power-component:17", False, -100),
           ep("aec", "find-animal:225", False, 50, task=UNNAMED),
           ep("aec", "find-animal:226", True, 100, task=UNNAMED)]
    rows = report_aec_controlled.goal_form_rows(eps)
    by = {r.named: r for r in rows}
    assert set(by) == {True, False}
    assert (by[True].episodes, by[True].won, by[True].failed_by_engine) == (2, 1, 1)
    assert by[True].mean_score == 50.0  # the failed task's -100 counts 0
    assert (by[False].won, by[False].failed_by_engine, by[False].mean_score) == (1, 0, 75.0)
    lines, data, plots = report_aec_controlled.controlled_section(eps, tmp_path)
    assert "names the target" in "\n".join(lines)
    assert "aec_controlled_scienceworld.png" in plots
    assert (tmp_path / "aec_controlled_scienceworld.png").exists()
    assert [r["named"] for r in data["goal_forms"]] == [False, True]


def test_household_episodes_get_no_goal_form_rows():
    assert report_aec_controlled.goal_form_rows([ep("aec", "eval/pick_and_place/0", True, None,
                                         env="household", dataset="household_eval")]) == []


def test_the_ablations_are_kept_apart_per_dataset():
    eps = []
    for ds, env, won_without_v in (("household_eval", "household", True),
                                   ("scienceworld_x", "scienceworld", False)):
        for i in range(3):
            eps.append(ep("aec", f"t:{i}", True, 100, config={"tau": 0.2}, dataset=ds,
                          env=env))
            eps.append(ep("aec", f"t:{i}", won_without_v, -100 + 200 * won_without_v,
                          config={"verification": False}, dataset=ds, env=env))
    rows = report_aec_controlled.ablation_rows(report_aec_controlled.controlled_rows(eps))
    assert sorted(r.dataset for r in rows) == ["household_eval", "scienceworld_x"]
    sw = next(r for r in rows if r.dataset == "scienceworld_x")
    assert {a.arm: a.failure for a in sw.arms} == {"AEC": 0.0, "without V": 1.0}


def test_a_baseline_run_under_each_predictor_pairs_once_with_each_aec_arm():
    """Query-Only run under both models (the same episodes twice): each AEC arm
    is paired with the copy under its own model, not with both."""
    other = MODEL.replace("acc=0.9", "acc=0.7")
    eps = []
    for model in (MODEL, other):
        for i in range(3):
            for method, q in (("aec", 1), ("query-only", 2)):
                e = ep(method, f"t:{i}", True, 100, queries=q,
                       config={"tau": 0.2} if method == "aec" else None)
                e.record.model = model
                eps.append(e)
    pairs = report_aec_controlled.query_pairs(eps)
    assert len(pairs) == 2 and {p.model for p in pairs} == {f"controlled-aec:{MODEL}",
                                                               f"controlled-aec:{other}"}
    tests = report_aec_episodes.paired(eps)
    assert len([t for t in tests if t.b.startswith("query-only")]) == 2
