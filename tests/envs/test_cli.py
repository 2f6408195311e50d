from __future__ import annotations

import io

from veriplan.cli import main


def test_env_check_and_play(textworld_python, games_cache, monkeypatch, capsys):
    assert main(["env", "check", "--env", "household", "--limit", "1"]) == 0
    assert "== household: 1/1 won; grounder:" in capsys.readouterr().out
    assert main(["env", "check-queries", "--limit", "1", "--per-step", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 games, ") and "0 contradicted" in out and "  kind: " in out
    monkeypatch.setattr("sys.stdin", io.StringIO(":actions\nlook\n:facts\n:quit\n"))
    assert main(["env", "play", "household", "--game", "eval/pick_and_place/0"]) == 0
    out = capsys.readouterr().out
    assert "Task: put a" in out and "go to " in out
