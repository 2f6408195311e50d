"""SQ-BCP and a baseline through the harness on the hidden-precondition
datasets: units run, resume, and the report shows the violation section; the
controlled model runs through the normal ``--backend`` and its units are
reported apart from model results (never mixed)."""

from __future__ import annotations

import json

from veriplan.bench.store import RunStore
from veriplan.cli import main

SCRIPT = ["--backend", "scripted", "--script", "tests.methods.sqbcp.scripts:cautious",
          "--no-cache"]


def test_bench_sqbcp_and_self_ask_resume_and_report(tmp_path, data_dir, capsys):
    args = ["--dataset", "sqbcp_recipes", "--data-dir", str(data_dir), "--limit", "3",
            "--config", "k=1", "--config", "embeddings=lexical", "--out", str(tmp_path)]
    assert main(["bench", "sqbcp", *args, "--config", "t_max=2", *SCRIPT]) == 0
    assert main(["bench", "sqbcp", *args, "--config", "t_max=2", *SCRIPT]) == 0
    assert "0 unit(s) run, 3 already in the store" in capsys.readouterr().out
    assert main(["bench", "self-ask", *args[:-6], "--config", "k=1", "--out", str(tmp_path),
                 *SCRIPT]) == 0
    records = list(RunStore(tmp_path).records())
    assert len(records) == 6 and all(r.status == "done" for r in records), \
        [r.error for r in records if r.error]
    sq = [r for r in records if r.method == "sqbcp"]
    assert all(not r.verified and r.result_dict()["metrics"]["stop"] for r in sq)
    assert main(["report", str(tmp_path), "--compare", "sqbcp:embeddings=lexical,k=1,t_max=2",
                 "self-ask:k=1"]) == 0
    out = capsys.readouterr().out
    assert "## Hidden preconditions (SQ-BCP and baselines)" in out
    assert "not comparable with the SQ-BCP paper's tables" in out
    report = json.loads((tmp_path / "report.json").read_text())
    assert {r["method"] for r in report["hidden"]} == {"sqbcp", "self-ask"}
    # SQ-BCP paired with the baseline on the same three tasks
    arm = {m: {r.instance: r for r in records if r.method == m} for m in ("sqbcp", "self-ask")}
    assert set(arm["sqbcp"]) == set(arm["self-ask"])
    def violated(method: str, instance: str) -> bool:
        return bool(arm[method][instance].result_dict()["metrics"]["violated"])

    only_a = sum(violated("sqbcp", i) and not violated("self-ask", i) for i in arm["sqbcp"])
    only_b = sum(violated("self-ask", i) and not violated("sqbcp", i) for i in arm["sqbcp"])
    assert f"| sqbcp_recipes | 1 | sqbcp | self-ask | 3 | {only_a} | {only_b} |" in out


def test_a_users_recipe_file(tmp_path, data_dir, capsys):
    from veriplan.domains.hidden.common import DATA

    mine = tmp_path / "mine.csv"
    mine.write_text((DATA / "recipes.csv").read_text()[:6000].rsplit("\n", 1)[0] + "\n")
    assert main(["bench", "hidden-direct", "--recipes", str(mine), "--limit", "2",
                 "--out", str(tmp_path / "run"), *SCRIPT]) == 0
    assert {r.dataset for r in RunStore(tmp_path / "run").records()} == {"sqbcp_recipes@mine"}


def test_controlled_units_run_through_bench_and_are_reported_apart(tmp_path, data_dir, capsys):
    base = ["--dataset", "sqbcp_recipes", "--data-dir", str(data_dir), "--limit", "3",
            "--config", "k=1", "--out", str(tmp_path), "--no-cache"]
    ctl = ["--backend", "controlled", "--model", "sqbcp:p_hidden=0,acc=0.5,seed=0"]
    assert main(["bench", "sqbcp", *base, "--config", "embeddings=lexical", *ctl]) == 0
    assert main(["bench", "self-ask", *base, *ctl]) == 0
    assert main(["bench", "self-ask", *base, "--backend", "scripted", "--script",
                 "tests.methods.sqbcp.scripts:cautious"]) == 0
    records = list(RunStore(tmp_path).records())
    assert len(records) == 9 and all(r.status == "done" for r in records), \
        [r.error for r in records if r.error]
    controlled = [r for r in records if r.backend == "controlled"]
    assert len(controlled) == 6 and sum(r.verified for r in controlled) >= 5
    assert main(["report", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "## Controlled-model results: hidden preconditions" in out
    model_part = out.split("## Controlled-model results")[0]
    assert "| self-ask | sqbcp_recipes | 1 | 3 |" in model_part  # the scripted units only
    assert "| sqbcp | sqbcp_recipes |" not in model_part
    report = json.loads((tmp_path / "report.json").read_text())
    assert {r["method"] for r in report["hidden"]} == {"self-ask"}
    assert (tmp_path / "controlled_sqbcp.png").exists()
