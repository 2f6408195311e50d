"""AutoToS: LLM-written successor functions and goal tests, checked by unit
tests and soundness/completeness feedback, then used by BFS/DFS. See
README.md in this folder."""

from veriplan.methods.autotos.config import Config
from veriplan.methods.autotos.method import reference, run_loop, solve_domain

__all__ = ["Config", "reference", "run_loop", "solve_domain"]
