"""Hidden-fact PDDL: a proposed step is read only when it is an action of the
task as written (name, arity, objects), and the bridging prompt asks for one."""

from __future__ import annotations

import json

import pytest

from tests.helpers import BLOCKS_DOMAIN
from veriplan.domains.hidden.pddl_hidden import hidden_task
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.sqbcp import Config, solve
from veriplan.methods.sqbcp.grounding import grounding_for
from veriplan.methods.sqbcp.hypothesis import Effects, Hypothesis
from veriplan.methods.sqbcp.request import request_for


@pytest.fixture
def task(tmp_path):
    d, p = tmp_path / "domain.pddl", tmp_path / "p.pddl"
    d.write_text(BLOCKS_DOMAIN, encoding="utf-8")
    p.write_text("""(define (problem p) (:domain bw) (:objects a b c)
      (:init (on c a) (ontable a) (ontable b) (clear c) (clear b) (handempty))
      (:goal (on a b)))""", encoding="utf-8")
    return hidden_task(d, p)


@pytest.mark.parametrize("action, read", [
    ("(unstack c a)", True),
    ("(pick-up b)", True),
    ("(pick-up c b)", False),     # one argument too many
    ("(pick-up orange)", False),  # not an object of the task
    ("(fly b)", False),           # not an action of the domain
])
def test_a_step_is_read_only_as_an_action_of_the_task(task, action, read):
    g = grounding_for(request_for(task, Config(k=0)))
    typed = g.hypothesis(Hypothesis(action, (), Effects({}, None, {}, 0.0)))
    assert (typed is not None) is read
    if read:
        assert typed.steps == (action,) and typed.pre


def test_the_bridging_prompt_asks_for_one_action_of_the_domain(task):
    seen = []

    def model(request):
        prompt = request.messages[-1].content
        seen.append(prompt)
        if "needs this" in prompt:  # a bridging request
            return json.dumps({"hypotheses": []})
        return json.dumps({"hypotheses": [{"action": "(pick-up b)", "preconditions": [],
                                           "effects": {}}]})

    solve(task, LLM(ScriptedBackend(fn=model)),
          Config(k=0, embeddings="lexical", bidirectional=False, t_max=2))
    bridges = [p for p in seen if "needs this" in p]
    assert bridges, "no bridging request: (clear b) is unknown with k=0"
    assert all("one action of the domain written as (action-name" in p for p in bridges)
    assert all("checking, preparing, measuring" not in p for p in bridges)
    assert all('{"hypotheses": []} if no single step' in p for p in bridges)
    # "no single step" ends bridging for that precondition: the query path takes over
    needs = [next(line for line in p.splitlines() if "needs this" in line) for p in bridges]
    assert len(needs) == len(set(needs))
