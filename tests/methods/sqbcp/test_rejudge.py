"""benchmarks/sweeps/sqbcp_rejudge.py: a stored SQ-BCP unit replayed from its own
answers ends as a run of the current code does; one whose answers run out is
reported as diverged, never counted; a baseline's stored plan is judged again."""

from __future__ import annotations

import json

from tests.helpers import benchmark_script
from tests.methods.sqbcp.test_sqbcp import MIX, Model, hyp, task
from veriplan.bench.store import UnitRecord
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.sqbcp import Config, solve

rejudge = benchmark_script("sweeps/sqbcp_rejudge")

CONFIG = {"k": 0, "embeddings": "lexical", "bidirectional": False}


def record(method: str, result: dict) -> UnitRecord:
    return UnitRecord("u1", method, "sqbcp_recipes", "pancakes", "scripted", "s",
                      json.dumps(CONFIG), 0, "done", bool(result["verified"]), None, 1, 10,
                      None, 1.0, None, None, json.dumps(result), "0", "0", 0.0)


FRY = hyp("Fry the batter with the eggs in a frying pan",
          [("batter is ready", "batter"), ("you have eggs", "eggs"),
           ("you have a frying pan", "frying pan")],
          made={"pancakes": 1, "batter": -1}, goal=True, structure="pancakes are made")


def test_a_replay_from_the_stored_answers_ends_as_the_run_did():
    t = task(made_with=("flour", "eggs"))
    run = solve(t, LLM(ScriptedBackend(fn=Model([[MIX], [FRY]]))), Config(**CONFIG))
    assert run.verified
    new, why, replay = rejudge.replay_sqbcp(record("sqbcp", run.to_dict()), t)
    assert why == "" and new is not None
    assert (new["plan"], new["verified"]) == (run.plan, run.verified)
    assert replay.calls == run.llm_calls


def test_a_replay_that_needs_an_answer_the_store_lacks_diverges():
    t = task(made_with=("flour", "eggs"))
    run = solve(t, LLM(ScriptedBackend(fn=Model([[MIX], [FRY]]))), Config(**CONFIG))
    stored = run.to_dict()
    stored["transcript"] = stored["transcript"][:1]  # the second answer was never stored
    new, why, _ = rejudge.replay_sqbcp(record("sqbcp", stored), t)
    assert new is None and why.startswith("call 2: a prompt the stored transcript does not hold")


def test_a_baselines_stored_plan_is_judged_again():
    stored = {"verified": True, "plan": ["Serve the pancakes"], "failure": None,
              "metrics": {"violations": [], "rouge1": 1.0},
              "transcript": [{"call": 1, "ok": True, "verdict": "no violation",
                              "plan": ["Serve the pancakes"]}]}
    new = rejudge.rejudge_baseline(record("hidden-cot", stored), task())
    assert not new["verified"] and new["failure"] == "wrong"
    assert new["metrics"]["verdict"] == "invalid" and new["metrics"]["rouge1"] == 1.0
    assert new["transcript"][0]["ok"] is False
    assert new["transcript"][0]["verdict"].startswith("invalid on the true task")
