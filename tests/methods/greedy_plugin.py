"""A method written outside veriplan's methods package, as in docs/DESIGN.md
(the contract test finds it through a ``veriplan.methods`` entry point)."""

from dataclasses import dataclass

from veriplan.methods import Run, as_problem
from veriplan.methods.settings import check
from veriplan.search import bfs
from veriplan.verify import validate_plan

PROBLEM = "pddl"


@dataclass(frozen=True)
class Config:
    seed: int = 0

    def __post_init__(self):
        check(self)


def solve(problem, llm, config=Config(), *, observer=None):
    run, task = Run("greedy", llm), as_problem(problem).task
    plan = [str(op) for op in (bfs(task).plan or [])]
    ok = bool(plan) and validate_plan(task, plan).valid
    return run.result(verified=ok, plan=plan, solved_by="search" if ok else None)
