"""veriplan: planning with large language models, where nothing counts as
solved until a sound verifier has checked it.

The core Python API::

    from veriplan import load_task, parse_plan, validate_plan
    task = load_task("domain.pddl", "problem.pddl")
    result = validate_plan(task, parse_plan("(pick-up a)\\n(stack a b)", task))
    result.valid, result.feedback()
"""

from veriplan.core.plan import Step
from veriplan.errors import PDDLParseError, VeriplanError
from veriplan.pddl.obfuscation import Renaming, obfuscate
from veriplan.pddl.task import Task, load_task
from veriplan.planio import ParsedPlan, PlanBenchConfig, parse_plan, render_prompt
from veriplan.verify import ValidationResult, validate_plan

__version__ = "0.1.0"


def solve_classical(task: Task, planner: str = "fd", *, time_limit: float = 300):
    """Solve ``task`` with a classical planner; see :mod:`veriplan.planners.classical`."""
    from veriplan.planners.classical import solve_classical as run

    return run(task, planner, time_limit=time_limit)


__all__ = [
    "PDDLParseError", "ParsedPlan", "PlanBenchConfig", "Renaming", "Step", "Task",
    "ValidationResult", "VeriplanError", "__version__", "load_task", "obfuscate",
    "parse_plan", "render_prompt", "solve_classical", "validate_plan",
]
