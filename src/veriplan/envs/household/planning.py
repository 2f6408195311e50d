"""Fast Downward (up-fast-downward) on a household game: the walkthrough."""

from __future__ import annotations

from functools import cache

from veriplan.errors import PlannerError


@cache
def _domain():
    import warnings

    from veriplan.envs.household.generator import game_domain
    from veriplan.errors import PDDLLenientWarning
    from veriplan.pddl.parser import parse_domain

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLLenientWarning)
        return parse_domain(game_domain(), file="alfred-game.pddl", strict=False)


def plan_game(game, time_limit: float = 60) -> list[str] | None:
    """Fast Downward's plan as PDDL action strings, or None (no plan)."""
    import warnings

    from veriplan.errors import PDDLLenientWarning
    from veriplan.pddl.parser import parse_problem
    from veriplan.pddl.task import Task
    from veriplan.planners.fast_downward import run_fast_downward

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLLenientWarning)
        task = Task(_domain(), parse_problem(game.problem, _domain(), strict=False))
    try:
        result = run_fast_downward(task, time_limit=time_limit)
    except PlannerError:
        return None
    return [str(s) for s in result.plan] if result.plan is not None else None
