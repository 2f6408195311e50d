"""veriplan: planning with large language models, where nothing counts as
solved until a sound verifier has checked it.

The core Python API::

    from veriplan import load_task, parse_plan, validate_plan
    task = load_task("domain.pddl", "problem.pddl")
    result = validate_plan(task, parse_plan("(pick-up a)\\n(stack a b)", task))
    result.valid, result.feedback()
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veriplan.core.budget import Budget, BudgetExceeded
    from veriplan.core.plan import Step
    from veriplan.errors import PDDLParseError, VeriplanError
    from veriplan.pddl.obfuscation import Renaming, obfuscate
    from veriplan.pddl.task import Task, load_task
    from veriplan.planio import ParsedPlan, PlanBenchConfig, parse_plan, render_prompt
    from veriplan.verify import ValidationResult, validate_plan

# Names resolved on first use, so that importing a small part of veriplan (the
# sandbox child, the CLI's --help) does not load the PDDL reader and the rest.
_LAZY = {
    "Budget": "veriplan.core.budget", "BudgetExceeded": "veriplan.core.budget",
    "Step": "veriplan.core.plan", "PDDLParseError": "veriplan.errors",
    "VeriplanError": "veriplan.errors", "Renaming": "veriplan.pddl.obfuscation",
    "obfuscate": "veriplan.pddl.obfuscation", "Task": "veriplan.pddl.task",
    "load_task": "veriplan.pddl.task", "ParsedPlan": "veriplan.planio",
    "PlanBenchConfig": "veriplan.planio", "parse_plan": "veriplan.planio",
    "render_prompt": "veriplan.planio", "ValidationResult": "veriplan.verify",
    "validate_plan": "veriplan.verify",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'veriplan' has no attribute {name!r}")


__version__ = "0.1.0"


def solve_classical(task: Task, planner: str = "fd", *, time_limit: float = 300,
                    budget: Budget | None = None):
    """Solve ``task`` with a classical planner within ``time_limit`` seconds (or a
    :class:`veriplan.core.budget.Budget`); see :mod:`veriplan.planners.classical`."""
    from veriplan.planners.classical import solve_classical as run

    return run(task, planner, time_limit=time_limit, budget=budget)


__all__ = [
    "Budget", "BudgetExceeded", "PDDLParseError", "ParsedPlan", "PlanBenchConfig", "Renaming",
    "Step", "Task",
    "ValidationResult", "VeriplanError", "__version__", "load_task", "obfuscate",
    "parse_plan", "render_prompt", "solve_classical", "validate_plan",
]
