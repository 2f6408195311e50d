"""Published results imported and re-judged: PlanBench response files and the
closed-loop authors' run folders (small files in their formats, written here),
then report and compare against a run of our own on the same instances."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from veriplan.bench.datasets import load_dataset
from veriplan.bench.imports_mystery import import_mystery_planning
from veriplan.bench.imports_planbench import import_planbench
from veriplan.bench.published import PublishedResultsError, UnknownInstanceError
from veriplan.bench.report import compare, write_report
from veriplan.bench.runner import run_sweep
from veriplan.bench.store import RunStore
from veriplan.bench.units import BackendSpec, SweepPlan
from veriplan.cli import main
from veriplan.search import bfs
from veriplan.verify import validate_plan

SOLVER = BackendSpec.of("scripted", script="tests.bench.scripts:solver")
PUBLISHED = "published:planbench:prompt_type=oneshot"


def _solution(inst) -> list:
    return list(bfs(inst.task()).plan)


def _words(inst, steps) -> list[str]:
    cfg = inst.planbench_config()
    return [cfg.describe_step(s) for s in steps]


def planbench_file(data_dir: Path, path: Path) -> dict[str, str]:
    """Six records on Blocksworld instance-2 .. instance-7 in PlanBench's
    format; returns what each one is (by instance id)."""
    insts = load_dataset("blocksworld", data_dir).instances[:6]
    kinds = {}
    records = []

    def add(inst, text: str, published: bool, kind: str, extracted=None) -> None:
        kinds[inst.id] = kind
        records.append({"instance_id": int(inst.id.split("-")[1]), "example_instance_id": 0,
                        "query": "PROMPT", "llm_raw_response": text,
                        "extracted_llm_plan": extracted or [], "ground_truth_plan": [],
                        "correct": published})

    a, b, c, d, e, f = insts
    add(a, "\n".join(_words(a, _solution(a))) + "\n[PLAN END]\n", True, "agree-valid",
        [str(s) for s in _solution(a)])
    # PlanBench's extractor guessed a step from a line that names no action: overturned
    add(b, "\n".join(_words(b, _solution(b))[:-1]
                     + ["stack the blue block under the red block"]) + "\n[PLAN END]\n",
        True, "overturn-unread", [str(s) for s in _solution(b)])
    add(c, "I am sorry, I cannot help with that puzzle.\n", False, "unreadable")
    add(d, "\n".join(_words(d, _solution(d))) + "\n[PLAN END]\n", False, "overturn-accepted")
    add(e, "\n".join(_words(e, _solution(e)[1:])) + "\n[PLAN END]\n", False,
        "agree-precondition")
    # the published verdict is the string form some PlanBench files use
    add(f, "\n".join(_words(f, _solution(f)[:-1])) + "\n[PLAN END]\n", False, "agree-goal")
    records[-1]["correct"] = "False"
    path.write_text(json.dumps({"task": "t1", "engine": "gpt-test", "prompt_type": "oneshot",
                                "domain": "blocksworld", "instances": records}, indent=1))
    return kinds


@pytest.fixture(scope="module")
def imported(tmp_path_factory, data_dir):
    """The PlanBench file imported, and a scripted run of our own on the same
    six instances, in one store."""
    root = tmp_path_factory.mktemp("pb")
    src = root / "blocksworld__gpt-test__one_shot.json"
    kinds = planbench_file(data_dir, src)
    out = root / "runs"
    summary = import_planbench(src, out, data_dir=data_dir)
    run_sweep(SweepPlan(["direct"], ["blocksworld"], [SOLVER], [{"prompt": "pddl"}], [0], 6),
              out, data_root=data_dir)
    return src, out, kinds, summary


def _published(out: Path) -> dict:
    store = RunStore(out, create=False)
    try:
        return {r.instance: r for r in store.records() if r.method == "published:planbench"}
    finally:
        store.close()


def test_planbench_records_are_rejudged_with_published_verdicts_beside(imported, data_dir):
    src, out, kinds, s = imported
    assert s.records == s.added == 6 and s.already == 0
    recs = _published(out)
    assert set(recs) == set(kinds)
    ds = {i.id: i for i in load_dataset("blocksworld", data_dir).instances}
    for inst, r in recs.items():
        m = r.result_dict()["metrics"]
        assert (r.dataset, r.backend, r.model, json.loads(r.config)) == \
            ("blocksworld", "published", "gpt-test", {"prompt_type": "oneshot"})
        # veriplan's verdict is its validator's on the raw answer, read with the config
        entry = r.result_dict()["transcript"][0]
        assert entry["response"] and entry["data"]["read_from"] == "response"
        task = ds[inst].task()
        from veriplan.planio import parse_plan

        again = validate_plan(task, parse_plan(entry["response"], task, format="planbench",
                                               config=ds[inst].planbench_config()))
        assert r.verified == again.valid and r.solved_by == ("llm" if again.valid else None)
        assert m["agrees"] == (m["published_verdict"] == r.verified)
    assert [i for i, k in kinds.items() if k.startswith("overturn")] == \
        sorted(o["instance"] for o in s.overturned)
    reasons = {o["instance"]: o["reason"] for o in s.overturned}
    by_kind = {k: i for i, k in kinds.items()}
    assert reasons[by_kind["overturn-unread"]] == "rejected:unread-line"
    assert reasons[by_kind["overturn-accepted"]] == "accepted"
    unread = recs[by_kind["overturn-unread"]]
    assert "under the red block" in unread.result_dict()["overturn_reason"]
    # PlanBench's extracted plan is judged beside: here it is valid, the answer is not
    assert unread.result_dict()["metrics"]["extracted_valid"] is True
    bad = recs[by_kind["unreadable"]].result_dict()
    assert not recs[by_kind["unreadable"]].verified and bad["metrics"]["agrees"]
    assert bad["transcript"][0]["plan"] == [] and bad["signals"][0]["failure"] == ["translation"]
    assert s.published_valid == 2 and s.veriplan_valid == 2 and s.agree == 4


def test_reimport_is_idempotent(imported, data_dir):
    src, out, _, first = imported
    before = {r.id: r.finished for r in RunStore(out, create=False).records()}
    again = import_planbench(src, out, data_dir=data_dir)
    assert (again.added, again.already) == (0, 6)
    assert {r.id: r.finished for r in RunStore(out, create=False).records()} == before
    assert (again.agree, again.overturns) == (first.agree, first.overturns)


def test_report_and_compare_pair_published_with_our_own_run(imported):
    _, out, kinds, s = imported
    records = list(RunStore(out, create=False).records())
    c = compare(records, PUBLISHED, "direct:prompt=pddl")
    assert c["paired_across_models"] == ["published:gpt-test", "scripted:scripted"]
    assert c["paired"]["shared"] == 6 == c["a_units"] == c["b_units"]
    ours = {r.instance: r.verified and r.solved_by == "llm" for r in records
            if r.method == "direct"}
    theirs = {r.instance: r.verified for r in records if r.method == "published:planbench"}
    assert c["paired"]["both"] == sum(ours[i] and theirs[i] for i in ours)
    assert c["paired"]["only_a"] == sum(theirs[i] and not ours[i] for i in ours)
    paths = write_report(out, compare_arms=[(PUBLISHED, "direct:prompt=pddl")])
    md = paths["markdown"].read_text()
    assert "## Published verdicts re-judged" in md
    assert "the same instances, models published:gpt-test and scripted:scripted" in md
    for o in s.overturned:
        assert f"blocksworld/{o['instance']}" in md and o["reason"] in md
    report = json.loads(paths["json"].read_text())
    group = report["published"]["groups"][0]
    assert (group["units"], group["agree"]) == (6, s.agree)
    assert report["comparisons"][0]["paired"]["shared"] == 6


def test_cli_import_prints_the_rejudged_counts(imported, data_dir, tmp_path, capsys):
    src, _, _, s = imported
    code = main(["import", "planbench", str(src), "--out", str(tmp_path),
                 "--data-dir", str(data_dir)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"published solved {s.published_valid}, veriplan verified {s.veriplan_valid}" in out
    for o in s.overturned:
        assert f"{o['instance']} ({o['reason']})" in out


def test_bad_input_gets_a_typed_error_naming_it(tmp_path, data_dir, capsys):
    with pytest.raises(PublishedResultsError, match="no such PlanBench response file") as e:
        import_planbench(tmp_path / "nope.json", tmp_path / "o", data_dir=data_dir)
    assert e.value.file.endswith("nope.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"domain": "blocksworld",\n "engine": "m",\n "instances": [\n  {,}]}\n')
    with pytest.raises(PublishedResultsError, match="not valid JSON") as e:
        import_planbench(broken, tmp_path / "o", data_dir=data_dir)
    assert (e.value.file, e.value.line) == (str(broken), 4)
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"domain": "blocksworld", "engine": "m", "instances": [
        {"instance_id": 2, "llm_raw_response": "", "correct": False},
        {"instance_id": 9999, "llm_raw_response": "", "correct": False}]}, indent=1))
    with pytest.raises(UnknownInstanceError, match="instance-9999.*blocksworld") as e:
        import_planbench(unknown, tmp_path / "o", data_dir=data_dir)
    lines = unknown.read_text().splitlines()
    assert lines[e.value.line - 1].strip() == '"instance_id": 9999,'  # the record's line
    left = import_planbench(unknown, tmp_path / "o", data_dir=data_dir, skip_unknown=True)
    assert left.skipped_unknown == ["instance-9999"] and left.added == 1
    no_verdict = tmp_path / "no_verdict.json"
    no_verdict.write_text(json.dumps({"domain": "blocksworld", "engine": "m", "instances": [
        {"instance_id": 2, "llm_raw_response": "x"}]}))
    with pytest.raises(PublishedResultsError, match="no published verdict"):
        import_planbench(no_verdict, tmp_path / "o2", data_dir=data_dir)
    assert main(["import", "planbench", str(broken), "--out", str(tmp_path / "o"),
                 "--data-dir", str(data_dir)]) == 2
    assert f"{broken}:4:" in capsys.readouterr().err


# ----- the closed-loop authors' run folders --------------------------------------------------
def _steps(plan) -> list[dict]:
    return [{"name": s.name, "args": list(s.args)} for s in plan]


def _val(ok: bool) -> dict:
    return {"success": ok, "status": "Plan validated successfully" if ok else "Plan failed"}


def mystery_run(data_dir: Path, root: Path) -> tuple[Path, dict[str, str]]:
    """A run folder in the authors' layout on Mystery instance-1 .. instance-6."""
    insts = {i.id: i for i in load_dataset("mystery_blocksworld", data_dir).instances}
    folder = root / "mystery_blocksworld_gpt-test_500"
    (folder / "instances").mkdir(parents=True)
    kinds = {}

    def write(pid: str, kind: str, attempts: list[dict], success: bool,
              search: list | None = None) -> None:
        kinds[pid] = kind
        rec = {"problem_id": pid, "domain": "blocksworld", "experiment_type": "mystery",
               "success": success, "attempts": attempts, "total_execution_time": 12.5}
        if search is not None:
            rec["search_plan"] = _steps(search)
            rec["val_results"] = _val(success)
        (folder / "instances" / f"{pid}.json").write_text(json.dumps(rec, indent=2))

    def sim(plan, ok: bool, report: str = "step 1: preconditions not satisfied") -> dict:
        return {"structured_plan": _steps(plan), "simulation": {"ok": ok, "report": report}}

    good = {k: _solution(i) for k, i in insts.items() if k in
            {"instance-2", "instance-3", "instance-4", "instance-5", "instance-6"}}
    write("instance-1", "outside", [sim([], False)], False)  # the authors start at 1
    p = good["instance-2"]
    passed = {**sim(p, True, "goal satisfied"), "val_results": _val(True)}
    write("instance-2", "agree-llm", [sim(p[1:], False), passed], True)
    p = good["instance-3"]
    write("instance-3", "agree-fallback", [sim(p[1:], False), sim(p[:1], False)], True, p)
    p = good["instance-4"]  # their simulator rejected a plan that is valid
    write("instance-4", "overturn-attribution", [sim(p[1:], False), sim(p, False)], True, p)
    p = good["instance-5"]  # credited to the model, but the plan is not valid
    write("instance-5", "overturn-rejected",
          [{**sim(p[1:], True, "goal satisfied"), "val_results": _val(True)}], True)
    bad = {"structured_plan": [{"verb": "attack"}, "overcome a b"],
           "simulation": {"ok": False, "report": "arity mismatch"}}
    write("instance-6", "agree-unreadable", [bad], False)
    return folder, kinds


@pytest.fixture(scope="module")
def mystery(tmp_path_factory, data_dir):
    root = tmp_path_factory.mktemp("mp")
    folder, kinds = mystery_run(data_dir, root)
    out = root / "runs"
    s = import_mystery_planning(folder, out, data_dir=data_dir, skip_unknown=True)
    return folder, out, kinds, s


def test_mystery_planning_keeps_model_and_fallback_attribution(mystery, data_dir):
    folder, out, kinds, s = mystery
    assert s.dataset == "mystery_blocksworld" and s.model == "gpt-test"
    assert s.skipped_unknown == ["instance-1"] and s.added == 5
    recs = {r.instance: r for r in RunStore(out, create=False).records()}
    by_kind = {k: i for i, k in kinds.items()}
    llm, fb = recs[by_kind["agree-llm"]], recs[by_kind["agree-fallback"]]
    assert (llm.verified, llm.solved_by) == (True, "llm")
    assert (fb.verified, fb.solved_by) == (True, "fallback:bfs")
    assert fb.result_dict()["metrics"]["published_solved_by"] == "fallback:bfs"
    assert llm.llm_calls == 2 and llm.seconds == 12.5
    moved = recs[by_kind["overturn-attribution"]]
    assert moved.solved_by == "llm"
    assert moved.result_dict()["metrics"]["overturn"] == "attribution:llm"
    assert "attempt 2" in moved.result_dict()["overturn_reason"]
    wrong = recs[by_kind["overturn-rejected"]]
    assert not wrong.verified
    assert wrong.result_dict()["metrics"]["overturn"] == "rejected:precondition"
    unread = recs[by_kind["agree-unreadable"]].result_dict()
    assert unread["transcript"][0]["unread"] and unread["metrics"]["agrees"]
    assert sorted(o["instance"] for o in s.overturned) == \
        sorted(i for i, k in kinds.items() if k.startswith("overturn"))
    # each attempt and the fallback are in the transcript with veriplan's verdict
    roles = [e["role"] for e in fb.result_dict()["transcript"]]
    assert roles == ["plan", "plan", "fallback"]
    md = write_report(out)["markdown"].read_text()
    # published: model 2 (instance-2, -5), fallback 2 (-3, -4);
    # veriplan: model 2 (-2, -4), fallback 1 (-3)
    assert "| 5 | 4 | 3 | 2 / 2 | 2 / 1 | 3 | 2 (" in md


def test_mystery_planning_bad_input(mystery, data_dir, tmp_path, capsys):
    folder, out, _, _ = mystery
    with pytest.raises(UnknownInstanceError, match="instance-1.*--skip-unknown"):
        import_mystery_planning(folder, tmp_path / "o", data_dir=data_dir)
    with pytest.raises(PublishedResultsError, match="no such run folder"):
        import_mystery_planning(tmp_path / "missing", tmp_path / "o", data_dir=data_dir)
    again = import_mystery_planning(folder, out, data_dir=data_dir, skip_unknown=True)
    assert (again.added, again.already) == (0, 5)
    assert main(["import", "mystery-planning", str(folder), "--out", str(out), "--data-dir",
                 str(data_dir), "--skip-unknown"]) == 0
    printed = capsys.readouterr().out
    assert "0 added, 5 already" in printed and "instances not in mystery_blocksworld: " \
        "instance-1" in printed and "fallback:bfs 2, llm 2" in printed
    odd = tmp_path / "odd_name"
    (odd / "instances").mkdir(parents=True)
    (odd / "instances" / "instance-2.json").write_text('{"problem_id": "instance-2",\n"x": }')
    with pytest.raises(PublishedResultsError, match="not valid JSON") as e:
        import_mystery_planning(odd, tmp_path / "o", data_dir=data_dir)
    assert e.value.line == 2 and e.value.file.endswith("instance-2.json")
    (odd / "instances" / "instance-2.json").write_text(json.dumps(
        {"problem_id": "instance-2", "success": False, "attempts": []}))
    with pytest.raises(PublishedResultsError, match="pass --dataset"):
        import_mystery_planning(odd, tmp_path / "o", data_dir=data_dir)
    with pytest.raises(PublishedResultsError, match="pass --model"):
        import_mystery_planning(odd, tmp_path / "o", data_dir=data_dir,
                                dataset="mystery_blocksworld")
    done = import_mystery_planning(odd, tmp_path / "o", data_dir=data_dir,
                                   dataset="mystery_blocksworld", model="m")
    assert done.added == 1 and done.agree == 1
