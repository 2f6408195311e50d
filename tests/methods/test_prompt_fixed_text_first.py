"""The closed loop's and AEC's prompts have no fixed text after what changes between
consecutive calls (issue 36 part 3): the instruction and the answer format come before
the parts that change, so a model that keeps the state of a prompt's beginning
(llama.cpp's context, the embedded backend's prefix cache) reads only the changed end
again. The words are the same as before; only their order changed."""

from __future__ import annotations

import os

from veriplan.methods.aec.prompting import render as aec_render
from veriplan.methods.closed_loop.method import _ENV as CLOSED_LOOP


def rest(a: str, b: str) -> str:
    """What ``b`` reads after the beginning it shares with ``a``."""
    return b[len(os.path.commonprefix([a, b])):]


def test_closed_loop_attempts_read_only_the_previous_plan_and_the_directives():
    lp = CLOSED_LOOP.get_template("lp.j2")
    values = dict(domain_pddl="(define (domain d))", problem_pddl="(define (problem p))",
                  constraints="Actions (parameters; ...):\n- a", random_names=True)
    first = lp.render(previous="", directives="", **values)
    second = lp.render(previous="(attack a)", directives="Repair instructions:\n- x", **values)
    third = lp.render(previous="(feast a b)", directives="Repair instructions:\n- y", **values)
    assert first.index("Write a plan") < first.index("Domain (PDDL)")
    for a, b in ((first, second), (second, third)):
        assert "Write a plan" not in rest(a, b) and "[PLAN END]" not in rest(a, b)
    assert rest(second, third).startswith("feast")


def test_aec_prompts_give_the_answer_format_before_what_changes():
    values = dict(task="put a hot apple on the table.", admissible=["look"],
                  actions_help="go to RECEPTACLE", k=5, max_preconditions=8,
                  predicates=["at(agent, R)", "in(O, R)"])
    a = aec_render("generate.j2", facts=["at(agent, table 1) = true"], feedback=[], **values)
    b = aec_render("generate.j2", facts=["at(agent, table 1) = true"],
                   feedback=["no plan was verified"], **values)
    assert a.index("Answer only with JSON") < a.index("Your task:")
    assert rest(a, b) == "\nWhat went wrong before:\n- no plan was verified\n"
    for name in ("predict_facts.j2", "predict_doubt.j2", "predict_world.j2"):
        one, two = (aec_render(name, task="put a hot apple on the table.",
                               facts=["at(agent, table 1) = true"], question=q)
                    for q in ("apple 1 is hot", "microwave 1 is open"))
        assert "JSON" not in rest(one, two), name
        assert "JSON" in one[:one.index("at(agent, table 1)")], name
