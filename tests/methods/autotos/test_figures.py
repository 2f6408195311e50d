"""The paper's Table 1 and Figures 2-4 from run records: computed by hand on
made-up runs, printed by ``veriplan autotos run`` (5 runs by default, as the
paper) and written by ``veriplan report`` for a bench store of autotos units."""

from __future__ import annotations

import json

from veriplan.cli import main
from veriplan.methods.autotos.figures import RunSummary, aggregate, markdown

SCRIPT = ["--backend", "scripted", "--script",
          "tests.methods.autotos.scripts:reference_answers", "--no-cache"]


def runs() -> list[RunSummary]:
    return [
        RunSummary("m:a", "24game", "passed", {"succ": 3, "goal": 2},
                   {"succ_soundness": 1, "succ_completeness": 1, "goal_soundness": 1},
                   {"goal": 1, "soundness": 1, "completeness": 1},
                   {"initial": 0.5, "sound": 0.75, "final": 1.0}),
        RunSummary("m:a", "24game", "budget_exhausted", {"succ": 10, "goal": 1},
                   {"succ_soundness": 10}, {"goal": 0, "soundness": 9, "completeness": 0},
                   {"initial": 0.0, "final": 0.25}),
        RunSummary("m:a", "24game", "passed", {"succ": 1, "goal": 1}, {}, {},
                   {"initial": 0.2, "sound": 0.2, "final": 0.2}, partial_check=False),
    ]


def test_aggregates_by_hand():
    agg = aggregate(runs())
    t1 = {t["val"]: t for t in agg["table1"]}
    assert t1["w/ val"]["mean_calls"] == (5 + 11) / 2 and t1["w/ val"]["runs"] == 2
    assert t1["w/o val"]["mean_calls"] == 2
    f2 = {f["val"]: f for f in agg["figure2"]}["w/ val"]
    assert f2["points"]["initial"] == {"reached": 2, "runs": 2, "mean_accuracy": 0.25,
                                       "at_100": 0}
    assert f2["points"]["sound"] == {"reached": 1, "runs": 2, "mean_accuracy": 0.75,
                                     "at_100": 0}
    # the end with every test passing: only the first run got there
    assert f2["points"]["final"] == {"reached": 1, "runs": 2, "mean_accuracy": 1.0,
                                     "at_100": 1}
    assert f2["end_mean_accuracy"] == 0.625 and f2["end_at_100"] == 1
    f3 = {f["val"]: f for f in agg["figure3"]}["w/ val"]
    assert (f3["goal"], f3["soundness"], f3["completeness"]) == (0.5, 5.0, 0.5)
    (f4,) = agg["figure4"]
    assert f4["total"] == 13 and f4["errors"]["succ_soundness"] == 11
    assert f4["errors"]["parse_error"] == 0  # every category of the paper is a column


def test_markdown_has_the_four_tables():
    md = markdown(runs())
    assert "| m:a | 8.0 (2 runs) |" in md and "| m:a (w/o val) | 2.0 (1 runs) |" in md
    assert "| m:a | 24game | w/ val | 25.0% (2/2; 0) | 75.0% (1/2; 0) | 100.0% (1/2; 1) " \
           "| 62.5% (1) |" in md
    assert "| m:a | 24game | w/ val | 0.5 | 5.0 | 0.5 |" in md
    assert "| m:a | 11 (84.6%) | 0 (0.0%) | 1 (7.7%) | 1 (7.7%) |" in md


def test_run_repeats_five_times_by_default_and_prints_the_figures(tmp_path, data_dir,
                                                                   capsys):
    assert main(["autotos", "run", "--domain", "24game", "--data-dir", str(data_dir),
                 "--out", str(tmp_path), "--config", "eval_limit=3", *SCRIPT]) == 0
    out = capsys.readouterr().out
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 5  # the paper repeats each experiment 5 times
    rec = json.loads(records[0].read_text())
    assert rec["feedback"] == {"goal": 0, "soundness": 0, "completeness": 0}
    assert rec["partial_check"] is True and rec["config"]["max_tokens"] is None
    assert "| scripted:scripted | 2.0 (5 runs) |" in out
    assert "| scripted:scripted | 24game | w/ val | 100.0% (5/5; 5) | 100.0% (5/5; 5) | " \
           "100.0% (5/5; 5) | 100.0% (5) |" in out
    assert "(Figure 3)" in out and "| scripted:scripted | 0 (n/a) |" in out  # Figure 4


def test_report_has_the_autotos_tables(tmp_path, data_dir, capsys):
    assert main(["bench", "autotos", "--dataset", "autotos_24game", "--data-dir",
                 str(data_dir), "--out", str(tmp_path), "--seeds", "0", "1", "--config",
                 "eval_limit=3", *SCRIPT]) == 0
    assert main(["report", str(tmp_path)]) == 0
    md = (tmp_path / "report.md").read_text()
    assert "## AutoToS: average calls to the model per domain run (Table 1)" in md
    assert "| scripted:scripted | 24game | w/ val | 100.0% (2/2; 2) |" in md
    assert "| scripted:scripted | 24game | w/ val | 0.0 | 0.0 | 0.0 |" in md
    assert "AutoToS: errors found, by category (Figure 4)" in md
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["autotos"]["table1"][0]["mean_calls"] == 2.0
    assert "AutoToS" in (tmp_path / "report.html").read_text()
