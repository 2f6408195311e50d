"""`veriplan llm complete` and `veriplan solve` from the command line, on
recorded cassettes (no network, no model)."""

from __future__ import annotations

import json

from tests.conftest import EXAMPLES
from veriplan.cli import main
from veriplan.llm import LLM, LLMRequest, ScriptedBackend
from veriplan.llm.backends.replay import CassetteRecorder
from veriplan.methods.backprompt import solve
from veriplan.pddl.task import load_task

DOM = str(EXAMPLES / "blocks-domain.pddl")
PROB = str(EXAMPLES / "blocks-problem.pddl")


def test_llm_complete_second_call_is_a_cache_hit(tmp_path, capsys):
    tape = tmp_path / "tape.jsonl"
    LLM(ScriptedBackend(["four"]), recorder=CassetteRecorder(tape)).complete(
        LLMRequest.of("2+2?", max_tokens=512))
    args = ["llm", "complete", "--prompt", "2+2?", "--backend", "replay", "--cassette",
            str(tape), "--model", "scripted", "--cache-path", str(tmp_path / "c.sqlite"),
            "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["text"] == second["text"] == "four"
    assert first["cached"] is False and second["cached"] is True
    assert second["cache"] == {"hits": 1, "misses": 0}


def test_solve_json_from_a_cassette(tmp_path, capsys):
    tape = tmp_path / "tape.jsonl"
    task = load_task(DOM, PROB)
    backend = ScriptedBackend(["(pick-up a)\n[PLAN END]",
                               (EXAMPLES / "blocks-plan.txt").read_text()])
    solve(task, LLM(backend, recorder=CassetteRecorder(tape)))
    args = ["solve", "--method", "backprompt", "--domain", DOM, "--problem", PROB,
            "--backend", "replay", "--cassette", str(tape), "--model", "scripted",
            "--no-cache", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is True and out["attempts"] == 2 and out["llm_calls"] == 2
    assert out["plan"][0] == "(unstack c a)" and out["tokens"] > 0 and "seconds" in out
    assert main([*args[:-1]]) == 0
    text = capsys.readouterr().out
    assert "plan verified on your PDDL domain and problem" in text and "attempt 2" in text
    assert "(model-solved)" in text


def test_solve_budget_exhausted_exit_1(tmp_path, capsys):
    tape = tmp_path / "tape.jsonl"
    task = load_task(DOM, PROB)
    from veriplan.methods.backprompt import BackpromptConfig

    solve(task, LLM(ScriptedBackend(["no idea"] * 2), recorder=CassetteRecorder(tape)),
          BackpromptConfig(max_attempts=2))
    code = main(["solve", "--method", "backprompt", "--domain", DOM, "--problem", PROB,
                 "--backend", "replay",
                 "--cassette", str(tape), "--model", "scripted", "--no-cache",
                 "--max-attempts", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["verified"] is False and out["plan"] == []


def test_model_list(capsys):
    assert main(["model", "list"]) == 0
    assert "qwen2.5-coder-1.5b (default)" in capsys.readouterr().out


def test_solve_defaults_to_closed_loop(tmp_path, capsys):
    from veriplan.methods import closed_loop

    tape = tmp_path / "tape.jsonl"
    task = load_task(DOM, PROB)
    backend = ScriptedBackend(["(stack a b)\n[PLAN END]",
                               (EXAMPLES / "blocks-plan.txt").read_text()])
    closed_loop.solve(task, LLM(backend, recorder=CassetteRecorder(tape)))
    code = main(["solve", "--domain", DOM, "--problem", PROB, "--backend", "replay",
                 "--cassette", str(tape), "--model", "scripted", "--no-cache"])
    out = capsys.readouterr().out
    assert code == 0 and "not valid [first_step_constraint]" in out
    assert "plan verified on your PDDL domain and problem" in out and "(model-solved)" in out
