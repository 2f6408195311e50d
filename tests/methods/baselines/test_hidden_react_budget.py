"""ReAct on hidden-precondition tasks (issue 33): its turn budget must not stop it
where the other baselines are not stopped. Each ReAct step takes a turn, so a
budget below a task's plan length plus its questions cut the plan off (at 12
turns, 27 of the controlled study's 80 hidden-fact PDDL units at p = 0); and it
asks the oracle within the same question budget as the other baselines."""

from __future__ import annotations

import pytest

from tests.methods.sqbcp.test_sqbcp import task
from veriplan.bench.datasets import load_dataset
from veriplan.llm import LLM, ScriptedBackend
from veriplan.llm.binding import TaskRef
from veriplan.methods.baselines.hidden import Config, react, self_ask
from veriplan.methods.sqbcp.controlled import ControlledBackend

P0 = "sqbcp:p_hidden=0.0,acc=0.5,seed=0"  # the study's p = 0 model
MIX, FRY = "Mix flour and eggs into a batter", "Fry the batter in margarine"


@pytest.fixture(scope="module")
def pddl_tasks(data_dir):
    ds = load_dataset("sqbcp_pddl_hidden", data_dir)
    return ds.name, [i.problem() for i in ds.instances[:20]]  # the study's 20 tasks


def test_with_no_omission_react_verifies_every_study_task_as_self_ask_does(pddl_tasks):
    # p = 0: the controlled model omits nothing and asks what it needs, so a
    # baseline that reads its answers reaches every goal; k = 1 reveals the fewest
    # facts (the most questions), and the reference plans run to 12 steps
    name, tasks = pddl_tasks
    backend = ControlledBackend(P0, tasks=tasks)
    llm = LLM(backend)
    runs = {}
    for t in tasks:
        with backend.bind_task(TaskRef(name, t.id)):
            runs[t.id] = r = react(t, llm, Config(k=1))
            assert self_ask(t, llm, Config(k=1)).verified, t.id  # the peer it must match
        assert r.plan == list(t.reference[:len(r.plan)]), t.id  # it read each step
    assert [i for i, r in runs.items() if not r.verified] == []
    assert [i for i, r in runs.items() if r.metrics["out_of_turns"]] == []


def test_a_plan_longer_than_twelve_turns_is_read_whole():
    turns = ["Thought: fat?\nAction: Ask: do you have butter?"]
    turns += [f"Thought: next.\nAction: Step: {MIX}"] * 12 + [
        f"Thought: fry.\nAction: Step: {FRY}", "Thought: done.\nAction: Finish"]
    r = react(task(), LLM(ScriptedBackend(turns)), Config(k=0))
    assert len(r.plan) == 13 and r.plan[-1] == FRY
    assert r.metrics["turns"] == 14 and not r.metrics["out_of_turns"]


def test_the_turn_budget_still_ends_a_run_that_never_finishes():
    r = react(task(), LLM(ScriptedBackend([f"Thought: again.\nAction: Step: {MIX}"] * 5)),
              Config(k=0, max_turns=5))
    assert r.llm_calls == 5 and len(r.plan) == 5 and r.metrics["out_of_turns"]


def test_questions_stay_within_the_other_baselines_budget():
    turns = [f"Thought: ask.\nAction: Ask: do you have tool {n}?" for n in range(4)]
    turns += [f"Thought: ok.\nAction: Step: {FRY}", "Thought: done.\nAction: Finish"]
    backend = ScriptedBackend(turns)
    r = react(task(), LLM(backend), Config(k=0, max_questions=2))
    assert r.metrics["queries"] == 2 and r.metrics["questions"] == 2
    assert "No more questions (2 asked)" in backend.requests[4].messages[-1].content
    assert r.plan == [FRY] and r.transcript[2].verdict == "question over the budget"


def test_without_the_oracle_react_asks_nothing():
    turns = ["Thought: ask.\nAction: Ask: do you have butter?",
             f"Thought: ok.\nAction: Step: {FRY}", "Thought: done.\nAction: Finish"]
    r = react(task(), LLM(ScriptedBackend(turns)), Config(k=0, oracle=False))
    assert r.metrics["queries"] == 0 and r.plan == [FRY]
