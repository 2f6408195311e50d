"""The report's AEC section over records the harness made with the scripted
backend on the kitchen: Table 1 (per task type), Table 2 (seen/unseen score
and success), the iteration curve and the paired tests, and `veriplan report
--compare` on these units."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

import pytest

from tests.methods.aec import kitchen
from veriplan.bench.datasets import DATASETS, Dataset, register_dataset
from veriplan.bench.report import write_report
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.envs import ENVS
from veriplan.envs.base import EnvTask
from veriplan.methods.aec import report as report_aec
from veriplan.methods.aec import report_episodes as report_aec_episodes
from veriplan.methods.aec import report_iterations as report_aec_iterations
from veriplan.methods.aec.domain import ENV_MODELS
from veriplan.methods.aec.episode import DECISIONS_KEPT

SCRIPTED = BackendSpec.of("scripted", None, script="tests.methods.aec.kitchen:answer")
# three kitchens under three ALFWorld task types (the label is the report's; the kitchen
# plays the same hot-apple task)
HOUSEHOLD = (("hot_apple/fridge", "pick_heat_then_place"), ("hot_apple/cabinet", "pick_and_place"),
             ("hot_apple/counter", "pick_two_obj_and_place"))
SCORED = (("hot_apple/fridge", "seen"), ("hot_apple/cabinet", "seen"),
          ("hot_apple/counter", "unseen"))


class ScoredKitchen(kitchen.FakeKitchen):
    """A kitchen that scores episodes like ScienceWorld: 100 when won, 25 after
    any other step."""

    name = "fakekitchen-scored"

    def _reset(self, task_id: str, seed: int) -> str:
        self.score = 0.0
        return super()._reset(task_id, seed)

    def _step(self, action: str):
        text, reward, done, info = super()._step(action)
        self.score = 100.0 if info["won"] else 25.0
        return text, reward, done, {**info, "score": self.score}


@dataclass(frozen=True)
class Inst:
    id: str
    dataset: str
    env: str
    split: str
    task_type: str

    def problem(self, kind: str = "env") -> EnvTask:
        return EnvTask(self.env, self.id, self.split, self.task_type)


def _household(root=None) -> Dataset:
    return Dataset("kitchen_table", tuple(Inst(i, "kitchen_table", "fakekitchen", "eval", t)
                                          for i, t in HOUSEHOLD), "kitchen-table-v1")


def _scored(root=None) -> Dataset:
    return Dataset("kitchen_sw", tuple(Inst(i, "kitchen_sw", "fakekitchen-scored", s, "boil")
                                       for i, s in SCORED), "scienceworld-1.2.3-kitchen")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One store with AEC (and with two iterations), ReAct and Query-Only on the
    three household-labelled kitchens, and AEC and ReAct on the scored ones."""
    out = tmp_path_factory.mktemp("aec-report")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VERIPLAN_CACHE", str(out / "cache"))
        ENVS.register("fakekitchen", kitchen.FakeKitchen)
        ENVS.register("fakekitchen-scored", ScoredKitchen)
        ENV_MODELS.register("fakekitchen", kitchen.model())
        ENV_MODELS.register("fakekitchen-scored", kitchen.model())
        register_dataset("kitchen_table", _household)
        register_dataset("kitchen_sw", _scored)
        try:
            small = {"max_steps": 20}
            plan = SweepPlan(["aec", "aec-react", "query-only"], ["kitchen_table"], [SCRIPTED],
                             [small, {"method": "aec", **small, "iterations": 2}])
            assert run_sweep(plan, out).errors == 0
            plan = SweepPlan(["aec", "aec-react"], ["kitchen_sw"], [SCRIPTED], [small])
            assert run_sweep(plan, out).errors == 0
        finally:
            for name in ("fakekitchen", "fakekitchen-scored"):
                ENVS.unregister(name)
                ENV_MODELS.unregister(name)
            DATASETS.unregister("kitchen_table")
            DATASETS.unregister("kitchen_sw")
    return out


def _records(out):
    return list(RunStore(out, create=False).records())


def _won(r) -> bool:
    return bool(r.result_dict()["metrics"]["won"])


def test_table1_counts_each_task_type_from_the_records(runs):
    recs = _records(runs)
    rows = report_aec.table1(report_aec_episodes.episodes(recs))
    assert {(r.method, r.config) for r in rows} == {
        ("aec", "max_steps=20"), ("aec", "iterations=2, max_steps=20"),
        ("aec-react", "max_steps=20"), ("query-only", "max_steps=20")}
    for row in rows:
        mine = [r for r in recs if r.dataset == "kitchen_table" and r.method == row.method
                and report_aec_episodes.config_of(r) == row.config]
        assert row.units == 3 and row.won == sum(map(_won, mine))
        for head, task_type in report_aec_episodes.TASK_TYPES:
            sub = [r for r in mine if r.result_dict()["metrics"]["task_type"] == task_type]
            assert row.by_type[head] == (sum(map(_won, sub)), len(sub))
        queries = [r.result_dict()["metrics"]["queries"] for r in mine]
        assert row.costs.queries == pytest.approx(sum(queries) / 3)
        assert row.costs.tokens == pytest.approx(sum(r.tokens for r in mine) / 3)
    react = next(r for r in rows if r.method == "aec-react")
    assert react.won == 0 and react.costs.replanning_rounds == 10  # the cap, as in the paper


def test_table2_scores_seen_and_unseen_with_the_version_and_the_subset(runs):
    recs = _records(runs)
    rows = report_aec.table2(report_aec_episodes.episodes(recs))
    assert [r.method for r in rows] == ["aec", "aec-react"]
    for row in rows:
        for split in ("seen", "unseen"):
            mine = [r for r in recs if r.dataset == "kitchen_sw" and r.method == row.method
                    and r.result_dict()["metrics"]["split"] == split]
            scores = [r.result_dict()["metrics"]["score"] for r in mine]
            assert row.split(split).units == len(mine) == (2 if split == "seen" else 1)
            assert row.split(split).score == pytest.approx(sum(scores) / len(scores))
            assert row.split(split).won == sum(map(_won, mine))
    aec, react = rows
    assert aec.seen.score > react.seen.score == 25.0  # ReAct only looks around
    assert report_aec.package_version(recs).startswith("1.2.3")


def test_iteration_curve_and_paired_tests(runs):
    eps = report_aec_episodes.episodes(_records(runs))
    curves = report_aec_iterations.iterations(eps)
    assert [(c.method, c.config) for c in curves] == [("aec", "iterations=2, max_steps=20")]
    mine = [e for e in eps if e.metrics.get("iterations") == 2]
    assert curves[0].success_by_iteration == [
        sum(e.metrics["success_by_iteration"][i] for e in mine) / len(mine) for i in (0, 1)]
    # an episode won only on its second pass counts from iteration 1 on
    late = mine[0]
    m = {**late.metrics, "success_by_iteration": [False, True]}
    again = dataclasses.replace(late, metrics=m)
    curve = report_aec_iterations.iterations([again, *mine[1:]])[0].success_by_iteration
    assert curve[1] - curve[0] == pytest.approx(1 / len(mine))
    pairs = report_aec_episodes.paired(eps)
    vs_react = next(p for p in pairs if p.b == "aec-react (max_steps=20)"
                    and p.a == "aec (max_steps=20)" and p.dataset == "kitchen_table")
    assert vs_react.shared == 3 and vs_react.only_b == 0
    assert vs_react.only_a == vs_react.a_won - vs_react.both


def test_the_report_has_the_section_the_plot_and_the_compare(runs):
    paths = write_report(runs, compare_arms=[("aec:max_steps=20", "aec-react:max_steps=20")])
    md = paths["markdown"].read_text()
    assert "Table 1" in md and "Table 2" in md and "Figure 3" in md
    assert "scienceworld package version: 1.2.3" in md
    assert "task subset, unseen: 1 variation(s) of 1 task(s): boil 1" in md
    # the paper's Table 1: the average first, then the six task types
    assert "| all (Wilson 95%) | pick | clean | heat | cool | examine | pick two |" in md
    # AEC's rows say which tau and calibration they ran with (here: the defaults)
    assert ("- aec (max_steps=20; scripted:scripted; kitchen_table): tau 0.2 (the setting, "
            "not chosen on a validation split); calibration none (sigma = the raw "
            "uncertainty)") in md
    assert "- aec-react (max_steps=20" not in md  # ReAct has neither
    assert (runs / "aec_iterations.png").is_file() and "aec_iterations.png" in paths[
        "html"].read_text()
    data = json.loads(paths["json"].read_text())
    cmp = data["comparisons"][0]
    assert cmp["paired"]["shared"] == 6  # both datasets' units, paired by instance
    assert data["aec"]["table1"] and data["aec"]["household_not_comparable"] is None
    assert report_aec.NOT_COMPARABLE not in md  # no household game here


def test_household_units_carry_the_not_comparable_note(runs, tmp_path):
    recs = [dataclasses.replace(r, dataset="household_eval") for r in _records(runs)
            if r.dataset == "kitchen_table"]
    md, data, _ = report_aec.section(recs, tmp_path)
    assert report_aec.NOT_COMPARABLE in md and data["household_not_comparable"]


def test_the_cli_compares_these_units(runs, capsys):
    from veriplan.cli import main

    assert main(["report", str(runs), "--compare", "query-only:max_steps=20",
                 "aec-react:max_steps=20"]) == 0
    out = capsys.readouterr().out
    assert "query-only:max_steps=20 against aec-react:max_steps=20" in out


def _broken(runs):
    """The AEC (max_steps=20) and ReAct units on the household-labelled kitchens
    (under household ids, from which an error unit's task type is read), AEC's
    first unit an error (no metrics, no calls) and its second an episode
    whose environment died, with costs that would move every mean."""
    ids = {i: f"eval/{t}/0" for i, t in HOUSEHOLD}  # household ids: an error's type is read
    recs = [dataclasses.replace(r, instance=ids[r.instance]) for r in _records(runs)
            if r.dataset == "kitchen_table" and report_aec_episodes.config_of(r) == "max_steps=20"
            and r.method in ("aec", "aec-react")]
    aec = sorted((r for r in recs if r.method == "aec"), key=lambda r: r.instance)
    error = dataclasses.replace(aec[0], status="error", verified=False, result=None,
                                llm_calls=0, tokens=0, error_category="veriplan:ConfigError",
                                error="no tau file")
    res = aec[1].result_dict()
    res.update(verified=False, failure="env_error")
    res["metrics"].update(won=False, queries=99, env_steps=999, replanning_rounds=10)
    died = dataclasses.replace(aec[1], verified=False, result=json.dumps(res),
                               llm_calls=5000, tokens=10 ** 7)
    kept = aec[2]
    react = [r for r in recs if r.method == "aec-react"]
    return [error, died, kept, *react], kept, aec[1].instance


def test_error_units_and_env_errors_count_as_losses_but_not_in_costs_or_pairs(runs, tmp_path):
    recs, kept, died = _broken(runs)
    eps = report_aec_episodes.episodes(recs)
    row = next(r for r in report_aec.table1(eps) if r.method == "aec")
    # success over every attempted episode: both count as not won
    assert row.units == 3 and row.won == int(_won(kept))
    c = row.costs
    assert c.costed == 1 and c.left_out == {"error": 1, "env_error": 1}
    m = kept.result_dict()["metrics"]
    assert (c.queries, c.env_steps, c.replanning_rounds) == (
        m["queries"], m["env_steps"], m["replanning_rounds"])
    # the calls and tokens are on the same episode as the other costs (no error's 0s)
    assert (c.llm_calls, c.tokens) == (kept.llm_calls, kept.tokens)
    assert row.failures["env_error"] == 1
    pair = next(p for p in report_aec_episodes.paired(eps) if p.b.startswith("aec-react"))
    assert pair.shared == 1 and pair.left_out == 2
    assert pair.left_out_by == {"error": 1, "env_error": 1}
    assert pair.a_won == int(_won(kept))
    md, _, _ = report_aec.section(recs, tmp_path)
    assert report_aec.RULE in md and "2 of 3 left out of the cost means (error 1, env_error 1)" \
        in md
    assert "| 1/3 |" in md and "| 2 (error 1, env_error 1) |" in md


def test_the_paired_test_leaves_out_an_env_error_pair_and_says_so(runs, tmp_path):
    recs, _, died = _broken(runs)
    recs = recs[1:]  # without the error unit: only the environment failure is left out
    eps = report_aec_episodes.episodes(recs)
    pair = next(p for p in report_aec_episodes.paired(eps) if p.b.startswith("aec-react"))
    assert pair.shared == 1 and pair.left_out_by == {"env_error": 1}
    react_died = next(e for e in eps if e.record.method == "aec-react"
                      and e.record.instance == died)
    assert not react_died.won  # a shared loss: would have been in "neither" otherwise
    md, _, _ = report_aec.section(recs, tmp_path)
    assert "| 1 (env_error 1) |" in md and "left out of both" in md


def test_each_row_says_whether_its_tau_was_selected_and_by_what(runs, tmp_path):
    from veriplan.methods.aec.tau import choose, load_tau, save_tau

    def c(tau, success, queries):
        return {"tau": tau, "episodes": 6, "success": success, "replanning_rounds": 10.0,
                "queries": queries, "env_steps": 40.0}

    lost = [c(0.1, 0.0, 6.0), c(0.4, 0.0, 3.0)]
    by_queries = [c(0.1, 0.5, 6.0), c(0.4, 0.5, 3.0)]
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"format": "aec-tau/1", "tau": 0.4, "candidates": lost}))
    files = {"none": save_tau(str(tmp_path / "none.json"), choose(lost), lost),
             "queries": save_tau(str(tmp_path / "q.json"), choose(by_queries), by_queries),
             "old": old}
    recs = []
    for r in _records(runs):
        if r.dataset != "kitchen_table" or r.method != "aec":
            continue
        which = "none" if "iterations" in r.config else "queries"
        tau, source = load_tau(str(files[which]))
        res = r.result_dict()
        res["metrics"].update(tau=tau, tau_source=source)
        recs.append(dataclasses.replace(r, result=json.dumps(res)))
    tau, source = load_tau(str(old))
    res = recs[0].result_dict()
    res["metrics"].update(tau=tau, tau_source=source)
    recs.append(dataclasses.replace(recs[0], config=json.dumps({"max_steps": 21}),
                                    result=json.dumps(res)))
    rows = {r.config: r.gate for r in report_aec.table1(report_aec_episodes.episodes(recs))}
    assert [t.to_json() for t in rows["iterations=2, max_steps=20"].tau_selection] == [
        {"tau": 0.2, "file": str(files["none"]), "selected": False, "decided_by": None,
         "reason": "no candidate won a validation episode"}]
    assert rows["max_steps=20"].tau_selection[0].decided_by == "queries"
    assert rows["max_steps=21"].tau_selection[0].selected is None
    assert "reason" not in rows["max_steps=21"].tau_selection[0].to_json()
    md, _, _ = report_aec.section(recs, tmp_path)
    gate = {line.split(":")[0]: line for line in md.splitlines() if line.startswith("- aec (")
            and "tau " in line}
    assert ("tau 0.2 (not selected: no candidate won a validation episode; the default tau"
            in gate["- aec (iterations=2, max_steps=20; scripted"])
    assert ("tau 0.4 (selected on a validation split, decided by queries; the fewest queries "
            "decided" in gate["- aec (max_steps=20; scripted"])
    assert "whether it was selected and by what is not known" in gate[
        "- aec (max_steps=21; scripted"]


def test_where_the_decisions_went_sums_the_counters_and_the_gate_verdicts(runs, tmp_path):
    recs = [r for r in _records(runs) if r.status == "done"]
    rows = {(r.method, r.config, r.dataset): r
            for r in report_aec.flow(report_aec_episodes.episodes(recs))}
    kinds = {"query:ambiguous": 0, "query:uncertain": 0, "simulate": 0}
    seen_gate = 0
    for (method, config, dataset), row in rows.items():
        mine = [r.result_dict()["metrics"] for r in recs if r.method == method
                and report_aec_episodes.config_of(r) == config and r.dataset == dataset]
        assert row.episodes == len(mine)
        for key in ("hypotheses", "discarded", "predictions", "queries", "grounded_commits",
                    "unchecked_commits"):
            assert row.count(key) == sum(m.get(key, 0) for m in mine)
        assert row.grounded_commits is not None and row.unchecked_commits is not None
        assert row.grounded_commits + row.unchecked_commits == sum(m["commits"] for m in mine)
        if any(m["iteration"] for m in mine):
            assert set(row.round_ends.values()) == {None}
        else:  # every round without a commit ended one way or the other
            ends = list(row.round_ends.values())
            assert None not in ends and sum(ends) == sum(m["rejections"] for m in mine)
        want = {k: sum(d["kind"] == k and d["phase"] == "loop" for m in mine
                       for d in m.get("decisions", [])) for k in kinds}
        assert row.gate == want
        seen_gate += sum(want.values())
    assert seen_gate > 0  # the scripted kitchens do reach the gate
    # a prediction made before V (the commit phase) is not one of the gate's verdicts
    aec = next(r for r in recs if r.method == "aec" and r.result_dict()["metrics"]["predictions"])
    res = aec.result_dict()
    res["metrics"]["decisions"] = [{"kind": "simulate", "phase": "commit"},
                                   {"kind": "query:uncertain", "phase": "loop"}]
    row = report_aec.flow(report_aec_episodes.episodes([dataclasses.replace(
        aec, result=json.dumps(res))]))[0]
    assert row.gate == {"query:ambiguous": 0, "query:uncertain": 1, "simulate": 0}
    # an episode whose record keeps only part of its decisions: its row's gate is n/a
    res["metrics"]["decisions"] = [{"kind": "simulate", "phase": "loop"}] * DECISIONS_KEPT
    cut = dataclasses.replace(aec, result=json.dumps(res))
    row = report_aec.flow(report_aec_episodes.episodes([cut]))[0]
    assert set(row.gate.values()) == {None}
    md, data, _ = report_aec.section([cut], tmp_path)
    assert "### Where the decisions went" in md and "| n/a | n/a | n/a |" in md
    assert data["flow"] == [dataclasses.asdict(row)]


def test_where_the_decisions_went_tells_h_emptied_from_v_rejecting_h_star(runs):
    aec = next(r for r in _records(runs) if r.method == "aec" and r.status == "done"
               and not r.result_dict()["metrics"]["iteration"])
    res = aec.result_dict()

    def verify(ok, left):
        return {"role": "verify", "ok": ok, "data": {"hypotheses": [{"actions": []}] * left}}
    res["transcript"] = [verify(False, 0), verify(False, 2), verify(False, 0), verify(True, 1),
                         {"role": "act", "ok": False, "data": {}}]
    rec = dataclasses.replace(aec, result=json.dumps(res))
    row = report_aec.flow(report_aec_episodes.episodes([rec]))[0]
    assert row.round_ends == {"emptied": 2, "rejected": 1}
    # a second iteration's rounds are in the transcript too: not told apart (n/a)
    res["metrics"]["iteration"] = 1
    row = report_aec.flow(report_aec_episodes.episodes([rec, dataclasses.replace(
        aec, result=json.dumps(res))]))[0]
    assert row.round_ends == {"emptied": None, "rejected": None}


def test_commits_are_counted_by_what_decided_them(runs, tmp_path):
    """Issue 30: a commit V could not check is an unchecked commit, counted
    apart and never as grounded; a record from before the split says n/a
    (never re-labelled as grounded), and an unchecked commit is not a round
    that committed nothing."""
    aec = next(r for r in _records(runs) if r.method == "aec" and r.status == "done"
               and not r.result_dict()["metrics"]["iteration"])
    res = aec.result_dict()
    res["metrics"].update(commits=3, grounded_commits=1, unchecked_commits=2)
    res["transcript"] = [
        {"role": "verify", "ok": False, "data": {"committed": True, "commit_scope": "unchecked",
                                                 "hypotheses": [{"actions": []}]}},
        {"role": "verify", "ok": False, "data": {"committed": False,
                                                 "hypotheses": [{"actions": []}]}}]
    row = report_aec.flow(report_aec_episodes.episodes([dataclasses.replace(
        aec, result=json.dumps(res))]))[0]
    assert (row.grounded_commits, row.unchecked_commits) == (1, 2)
    assert row.round_ends == {"emptied": 0, "rejected": 1}
    old = aec.result_dict()
    for key in ("grounded_commits", "unchecked_commits"):
        old["metrics"].pop(key, None)
    rec = dataclasses.replace(aec, result=json.dumps(old))
    row = report_aec.flow(report_aec_episodes.episodes([rec]))[0]
    assert row.grounded_commits is None and row.unchecked_commits is None
    md, _, _ = report_aec.section([rec], tmp_path)
    assert "unchecked commits" in md and "grounded commits (V valid)" in md


def test_report_json_keeps_each_rows_layout(runs, tmp_path):
    """The typed rows write report.json as the dict rows did: Table 1's and
    Table 2's costs and gate flattened into the row, tau and calibration only
    for a row that has them, a reason only for a tau not selected."""
    recs = _records(runs)
    eps = report_aec_episodes.episodes(recs)
    t1, t2 = report_aec.table1(eps), report_aec.table2(eps)
    head = ["method", "config", "model", "dataset", "env", "units", "won", "success", "wilson",
            "by_type", "errors", "failures", "replanning_rounds", "queries", "env_steps",
            "llm_calls", "tokens", "costed", "left_out"]
    for r in t1:
        j = r.to_json()
        assert list(j)[: len(head)] == head
        assert list(j)[len(head):] == (["tau", "calibration", "tau_selection"] if r.gate else [])
        assert j["queries"] == r.costs.queries and j["wilson"] == list(r.wilson)
        assert j["by_type"] == {k: list(v) for k, v in r.by_type.items()}
    assert {r.method for r in t1 if r.gate} == {"aec"}
    (aec,) = {r.config: r for r in t1 if r.method == "aec" and r.config == "max_steps=20"}.values()
    assert aec.to_json()["tau_selection"] == [{"tau": 0.2, "file": None, "selected": False,
                                               "decided_by": None}]
    j2 = t2[0].to_json()
    assert list(j2)[:7] == ["method", "config", "model", "env", "seen", "unseen", "units"]
    assert list(j2)[-1] == "failures" and j2["seen"]["units"] == t2[0].seen.units
    _, data, _ = report_aec.section(recs, tmp_path)
    assert data is not None
    assert data["table1"] == [r.to_json() for r in t1]
    assert data["table2"] == [r.to_json() for r in t2]
    assert json.loads(json.dumps(data))["paired"][0]["a"] == report_aec_episodes.paired(eps)[0].a
