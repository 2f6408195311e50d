"""run_method offers the registered methods that plan for a PDDL task, learnt
from the registry (the MCP server names no method)."""

from __future__ import annotations

from veriplan.core.problems import ProblemKind
from veriplan.mcp.methods import offered_methods
from veriplan.methods import DEFAULT_METHOD, METHODS, get_method, method_specs, register_method


def test_the_offered_methods_are_the_pddl_ones_the_default_first():
    offered = offered_methods()
    assert offered[0] == DEFAULT_METHOD
    assert set(offered) == {s.name for s in method_specs() if s.problem is ProblemKind.PDDL}
    assert "autotos" not in offered  # model-written code: not a PDDL method
    assert offered == ("closed-loop", "backprompt", "direct", "drip", "cot", "react")


def test_a_method_registered_later_is_offered():
    base = get_method("direct")
    try:
        register_method("later-pddl", base.solve, base.config_cls)
        assert offered_methods()[-1] == "later-pddl"
    finally:
        METHODS.unregister("later-pddl")
    assert "later-pddl" not in offered_methods()
