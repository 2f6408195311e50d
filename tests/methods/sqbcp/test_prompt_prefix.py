"""SQ-BCP's prompts begin with what stays the same (issue 36 part 3): the task's goal,
actions and constraints, then each role's fixed instructions, then what changes from
call to call (the facts, the steps planned or still required, the step and the
precondition a bridge is for). A model that keeps the state of a prompt's beginning
(llama.cpp's context, the embedded backend's prefix cache) then reads again only what
changed. The words are the same as before; only their order changed."""

from __future__ import annotations

import os

from tests.methods.sqbcp.test_sqbcp import FRY, MIX, Model, hyp, run
from veriplan.methods.sqbcp import Config
from veriplan.methods.sqbcp.method import render

ACTIONS = ["(pick-up ?ob) requires (and (clear ?ob) (ontable ?ob) (handempty))",
           "(stack ?ob ?underob) requires (and (clear ?underob) (holding ?ob))"]
TASK = dict(goal="reach a state where (on a b)", actions=ACTIONS, k=3, pddl=True,
            constraints=["every action's preconditions must hold"])


def shared(a: str, b: str) -> int:
    return len(os.path.commonprefix([a, b]))


def forward(facts: list[str], done: list[str]) -> str:
    return render("forward.j2", facts=facts, done=done, **TASK)


def backward(needs: list[str], then: list[str]) -> str:
    return render("backward.j2", facts=["(ontable a)"], needs=needs, then=then, **TASK)


def bridge(action: str, need: str, facts: list[str], tried: list[tuple[str, str]]) -> str:
    return render("bridge.j2", goal=TASK["goal"], actions=ACTIONS, facts=facts, action=action,
                  need=need, subject=need, tried=tried)


def test_forward_prompts_of_different_states_share_the_task_and_the_instructions():
    a = forward(["(ontable a)", "(clear a)"], [])
    b = forward(["(holding a)", "not (clear a)"], ["(pick-up a)"])
    assert a.index("Propose up to 3") < a.index("Answer with JSON") < a.index("Known facts")
    assert shared(a, b) >= b.index("Known facts")  # only the facts and the steps are read
    assert b.index("Steps already planned") > b.index("Known facts")


def test_backward_prompts_differ_only_in_what_is_still_required():
    a = backward(["(on a b)"], [])
    b = backward(["(holding a)", "(clear b)"], ["(stack a b)"])
    assert a.index("Working backwards") < a.index("Known facts at the start")
    assert shared(a, b) >= b.index("Still required")


def test_bridge_prompts_share_the_task_and_the_instructions_up_to_the_precondition():
    a = bridge("(stack a b)", "(clear b)", ["(ontable a)"], [])
    b = bridge("(stack b c)", "(holding b)", ["(ontable b)"], [])
    assert a.index("Propose one step") < a.index("Known facts") < a.index("The step")
    assert shared(a, b) >= a.index('(include "')
    # a second attempt at the same precondition adds only what was tried, at the end
    c = bridge("(stack a b)", "(clear b)", ["(ontable a)"], [("(pick-up b)", "no")])
    assert shared(a, c) == len(a) and c.startswith(a)


def test_the_three_roles_of_one_task_share_the_goal_and_the_actions():
    f = forward(["(ontable a)"], [])
    k = backward(["(on a b)"], [])
    b = bridge("(stack a b)", "(clear b)", ["(ontable a)"], [])
    end_of_actions = f.index(ACTIONS[-1]) + len(ACTIONS[-1])
    assert min(shared(f, k), shared(f, b)) >= end_of_actions


def test_a_run_s_consecutive_prompts_of_one_role_share_all_but_what_changed():
    """A scripted run with forward, bridge and backward calls (the pancakes task)."""
    prompts: list[str] = []

    def bridge_answer(prompt: str) -> dict:
        return hyp("Stir the flour with water into a batter", [("you have flour", "flour")],
                   made={"batter": 1, "flour": -1}, facts=["batter is ready"],
                   structure="batter mixed")

    class Recording(Model):
        def __call__(self, request):  # type: ignore[no-untyped-def]
            prompts.append(request.messages[-1].content)
            return super().__call__(request)

    fry = hyp("Fry the batter in a frying pan", [("batter is ready", "batter")],
              made={"pancakes": 1, "batter": -1}, goal=True, structure="pancakes are made")
    model = Recording([[MIX], [fry, FRY]], backward=[[], []], bridge=bridge_answer)
    run(model, Config(k=0, embeddings="lexical", bidirectional=True))
    roles = model.asked
    assert {"forward", "backward"} <= set(roles)
    assert "bridge" in roles
    # what first changes: the facts, or for a bridge the precondition it is for
    first_change = {"forward": "Known facts", "backward": "Known facts", "bridge": '(include "'}
    for role, mark in first_change.items():
        mine = [p for p, r in zip(prompts, roles, strict=True) if r == role]
        for before, now in zip(mine, mine[1:], strict=False):
            assert shared(before, now) >= now.index(mark), role
