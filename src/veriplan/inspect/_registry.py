"""What inspect-ai loads through the ``inspect_ai`` entry point (named
``veriplan``): importing the tasks, solver and scorer registers them as
``veriplan/<name>``."""

from veriplan.inspect.scorer import plan_validator
from veriplan.inspect.solver import answer_once, veriplan_method
from veriplan.inspect.tasks import (
    planbench,
    planbench_blocksworld,
    planbench_blocksworld_hard,
    planbench_logistics,
    planbench_mystery,
)

__all__ = ["answer_once", "plan_validator", "planbench", "planbench_blocksworld",
           "planbench_blocksworld_hard", "planbench_logistics", "planbench_mystery",
           "veriplan_method"]
