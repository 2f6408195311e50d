"""AEC's consecutive prompts begin with what stays the same (issue 36 part 3): a
model that keeps the state of a prompt's beginning (llama.cpp's context, the embedded
backend's prefix cache) reads again only what changed. Scripted models in the kitchen."""

from __future__ import annotations

import os

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.aec import Config, solve
from veriplan.methods.aec.prompting import render


def shared(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def _household_prompts():
    model = kitchen.Model([[kitchen.plan("countertop 1")],
                           [{"actions": ["close microwave 1", "heat apple 1 with microwave 1",
                                         "go to table 1", "move apple 1 to table 1"]}]])
    r = solve(task("hot_apple/open_microwaves", "fakekitchen-loose", strict=True),
              LLM(ScriptedBackend(fn=model)), Config())
    assert r.metrics["replans"] == 1
    return model.prompts["plans"]


def test_aec_planning_prompts_put_instructions_and_task_before_what_changes():
    first, second = _household_prompts()[:2]
    facts = second.index("What has been observed")
    # instructions, command help and task are the same in both and come first
    assert second.index("Propose up to") < second.index("Your task:") < facts
    assert shared(first, second) > facts
    assert shared(first, second) >= 0.5 * len(second)
    # what went wrong is the last part, before the answer format only
    assert second.index("What went wrong before") > second.index("Commands available")


def test_aec_planning_prompts_of_different_tasks_share_the_instructions():
    values = dict(facts=["at(agent, table 1) = true"], feedback=[], admissible=["look"],
                  actions_help="go to RECEPTACLE", k=5, max_preconditions=8,
                  predicates=["at(agent, R)", "in(O, R)"])
    a = render("generate.j2", task="put a hot apple on the table.", **values)
    b = render("generate.j2", task="put a clean knife in the drawer.", **values)
    assert shared(a, b) > a.index("Commands look like this")


def test_aec_prediction_prompts_differ_only_from_the_question_on():
    facts = [f"at(agent, cabinet {i}) = false" for i in range(1, 21)]
    for name in ("predict_facts.j2", "predict_doubt.j2", "predict_world.j2"):
        a = render(name, task="put a hot apple on the table.", facts=facts,
                   question="apple 1 is in or on fridge 1")
        b = render(name, task="put a hot apple on the table.", facts=facts,
                   question="microwave 1 is open")
        assert shared(a, b) > a.index(facts[-1]), name  # task and facts read once
        assert shared(a, b) >= 0.7 * len(b), name
