"""Issue 33: the controlled model through the normal ``--backend``, and its
units reported apart from model results (never mixed)."""

from __future__ import annotations

import json

from veriplan.bench.store import RunStore
from veriplan.cli import main


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
