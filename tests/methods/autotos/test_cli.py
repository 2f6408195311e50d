"""``veriplan autotos`` and ``veriplan bench autotos`` end to end."""

from __future__ import annotations

import json

import pytest

from veriplan.cli import main

SCRIPT = ["--backend", "scripted", "--script",
          "tests.methods.autotos.scripts:reference_answers", "--no-cache"]


# The hand-written components solve every instance of the three quick domains and
# the first instances of the two slow ones (all 20 crosswords and 11 Sokoban
# puzzles take about 40 s: `veriplan autotos reference --domain all`, in docs/results/autotos.md).
@pytest.mark.parametrize(("domain", "limit", "line"), [
    ("24game", 0, "24game: 1352/1352 solved and validated (bfs)"),
    ("blocksworld", 0, "blocksworld: 502/502 solved and validated, optimal 502 (bfs)"),
    ("prontoqa", 0, "prontoqa: 4000/4000 solved and validated (bfs)"),
    ("crossword", 5, "crossword: 5/5 solved and validated (dfs)"),
    ("sokoban", 2, "sokoban: 2/2 solved and validated, optimal 2 (bfs)"),
])
def test_reference_command(data_dir, capsys, domain, limit, line):
    assert main(["autotos", "reference", "--domain", domain, "--limit", str(limit),
                 "--data-dir", str(data_dir)]) == 0
    assert line in capsys.readouterr().out


def test_run_writes_records_and_the_calls_table(tmp_path, data_dir, capsys):
    assert main(["autotos", "run", "--domain", "24game", "--data-dir", str(data_dir),
                 "--repeats", "2", "--out", str(tmp_path), "--config", "eval_limit=20",
                 *SCRIPT]) == 0
    out = capsys.readouterr().out
    assert "| scripted:scripted | 2.0 (2 runs) |" in out
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 2
    rec = json.loads(records[0].read_text())
    assert rec["status"] == "passed" and rec["calls"] == {"succ": 1, "goal": 1}
    assert set(rec["accuracy"]) == {"initial", "sound", "final"}
    assert any(s["kind"] == "call" and s["prompt"] for s in rec["steps"])


def test_bench_autotos_is_resumable(tmp_path, data_dir, capsys):
    args = ["bench", "autotos", "--dataset", "autotos_24game", "--data-dir", str(data_dir),
            "--out", str(tmp_path), "--seeds", "0", "1", "--config", "eval_limit=10",
            "--config", "evaluate_progress=false", *SCRIPT]
    assert main(args) == 0
    assert main(args) == 0
    assert "0 unit(s) run, 2 already in the store" in capsys.readouterr().out
    assert main(["report", str(tmp_path)]) == 0
    assert "| autotos | search_components | scripted:scripted | autotos_24game |" in \
        capsys.readouterr().out
