"""The controlled SQ-BCP model's truth channel (issue 33): tasks that share a
goal line are told apart by what the prompt states, and a prompt that
several tasks with different truths fit equally is refused, never answered
for the wrong task (hidden-fact PDDL blocksworld/instance-14 was planned as
instance-255, whose only known fact instance-14's run had learned)."""

from __future__ import annotations

import json

import pytest

from veriplan.bench.datasets import load_dataset
from veriplan.errors import BackendError
from veriplan.llm import LLM
from veriplan.llm.types import LLMRequest
from veriplan.methods.baselines import hidden as baselines
from veriplan.methods.sqbcp import controlled
from veriplan.methods.sqbcp.config import Config
from veriplan.methods.sqbcp.controlled import ControlledBackend
from veriplan.methods.sqbcp.method import solve

# the forms ControlledBackend.answer replies to without the task's truth
NO_LOOKUP = ("needs this, which is not known", "preparatory step", "Working backwards",
             "Here are candidate plans:")
# blocksworld/instance-14 and the first tasks with its goal line (and objects)
SAME_GOAL = (13, 126, 254, 281)


@pytest.fixture(scope="module")
def same_goal(data_dir):
    ds = load_dataset("sqbcp_pddl_hidden", data_dir)
    tasks = [ds.instances[i].problem() for i in SAME_GOAL]
    assert len({t.goal for t in tasks}) == 1 and tasks[0].id == "blocksworld/instance-14"
    return tasks


def _prompts(task, method: str, model: str = "sqbcp:p_hidden=0,acc=0.5,seed=0") -> list[str]:
    """The prompts ``method`` sends on ``task`` to a controlled model that
    knows only ``task`` (no lookup can go wrong there)."""
    be = ControlledBackend(model, tasks=[task])
    if method == "sqbcp":
        solve(task, LLM(be), Config(k=2, embeddings="lexical"))
    else:
        getattr(baselines, method)(task, LLM(be), baselines.Config(k=1))
    return [r.messages[-1].content for r in be.requests
            if not any(s in r.messages[-1].content for s in NO_LOOKUP)]


def _lookups(truth: controlled.Truth, prompts: list[str]) -> list[str]:
    out = []
    for p in prompts:
        try:
            out.append(truth.find(p).id)
        except BackendError as exc:
            assert "fits" in str(exc) and "limit" in str(exc), exc  # names the fix
            out.append("refused")
    return out


def test_a_learned_fact_does_not_make_the_prompt_another_tasks(same_goal):
    """instance-14 has no known facts; after its run learns (handempty) its
    prompt is the first prompt of instance-255 (whose one known fact that is):
    nothing tells them apart, so the lookup refuses instead of planning 255."""
    t14 = same_goal[0]
    ids = {t.id for t in same_goal}
    assert "blocksworld/instance-255" in ids
    got = _lookups(controlled.Truth(tasks=same_goal), _prompts(t14, "sqbcp"))
    assert not set(got) - {t14.id, "refused"}, got
    assert "refused" in got  # instance-14's first prompt fits 255 and 282 as well


@pytest.mark.parametrize("method", ["sqbcp", "self_ask", "react", "direct"])
@pytest.mark.parametrize("model", ["sqbcp:p_hidden=0,acc=0.5,seed=0",
                                   "sqbcp:p_hidden=0.4,acc=0.5,seed=0"])
def test_every_lookup_is_the_right_task_or_refused(same_goal, method, model):
    """Over the runs of each task of the group (stated facts, answers, and
    SQ-BCP's state after the planned steps), a lookup among all of them never
    returns another task; the states after planned steps are told apart."""
    truth = controlled.Truth(tasks=same_goal)
    resolved_after_steps = 0
    for t in same_goal:
        prompts = _prompts(t, method, model)
        got = _lookups(truth, prompts)
        assert not set(got) - {t.id, "refused"}, (t.id, got)
        resolved_after_steps += sum(g == t.id and "Steps already planned:\n1." in p
                                    for g, p in zip(got, prompts, strict=True))
    if method == "sqbcp":
        assert resolved_after_steps > 0


def test_a_tie_in_the_natural_language_families_is_refused():
    """howto-h007-v0 and -v1 share the goal and have no known facts: their
    first prompts are the same, and their hidden facts differ."""
    tasks = [i.problem() for i in load_dataset("sqbcp_howto").instances[:20]]
    v0, v1 = (next(t for t in tasks if t.id == f"howto-h007-v{n}") for n in (0, 1))
    assert v0.goal == v1.goal and v0.known == v1.known == ()
    truth = controlled.Truth(tasks=tasks)
    got = _lookups(truth, _prompts(v1, "self_ask"))
    assert got and not set(got) - {v1.id, "refused"}, got
    assert got[0] == "refused"


def test_a_reply_that_needs_no_truth_needs_no_task():
    """SQ-BCP's bridge, need and backward requests are answered with no
    hypotheses before any lookup: a goal no task has does not fail them."""
    be = ControlledBackend("sqbcp:p_hidden=0", tasks=[])
    prompt = ("Goal: a goal no task has\nKnown facts (anything not listed is unknown, not "
              "false):\n- (none)\n\nThe step \"(pick-up a)\" needs this, which is not known "
              "to hold: (clear a) (about: (clear a)).")
    req = LLMRequest.of(prompt).with_schema({"type": "object"})
    assert json.loads(be.complete(req).text) == {"hypotheses": []}
    with pytest.raises(BackendError, match="no task with the goal"):
        be.complete(LLMRequest.of(prompt.replace("needs this", "uses this")))


def test_a_dataset_that_fails_to_load_fails_every_lookup_the_same(tmp_path):
    """A missing data directory is named on every prompt, not only the first
    (after it, every unit used to fail as 'no task with the goal')."""
    from veriplan.errors import DataError

    truth = controlled.Truth(datasets=["sqbcp_pddl_hidden"], data_dir=str(tmp_path / "none"))
    prompt = "Goal: reach a state where (on a b)\nActions (a step is one of these):\n"
    for _ in range(2):
        with pytest.raises(DataError):
            truth.find(prompt)
