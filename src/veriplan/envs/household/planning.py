"""The games' PDDL domain (alfred.pddl from the alfworld wheel, as games use
it) and Fast Downward (up-fast-downward) on a household game: the walkthrough."""

from __future__ import annotations

from functools import cache
from importlib import resources

from veriplan.errors import PlannerError


@cache
def alfworld_data() -> tuple[str, str]:
    """alfred.pddl and alfred.twl2 from the alfworld wheel."""
    root = resources.files("alfworld").joinpath("data")
    return root.joinpath("alfred.pddl").read_text(), root.joinpath("alfred.twl2").read_text()


DOMAIN_RTYPES = ("SinkBasin", "Microwave", "Fridge")
DOMAIN_OTYPES = ("Knife", "ButterKnife")


@cache
def game_domain() -> str:
    """alfred.pddl as games use it: read leniently (its known defects), with the
    types its actions name (SinkBasinType, ...) declared as constants, written
    back in PDDL that Fast Downward's current translator accepts."""
    import dataclasses
    import warnings

    from veriplan.errors import PDDLLenientWarning
    from veriplan.pddl.parser import parse_domain
    from veriplan.pddl.writer import domain_to_pddl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PDDLLenientWarning)
        d = parse_domain(alfworld_data()[0], file="alfred.pddl", strict=False)
    consts = {f"{t.lower()}type": "rtype" for t in DOMAIN_RTYPES}
    consts |= {f"{t.lower()}type": "otype" for t in DOMAIN_OTYPES}
    return domain_to_pddl(dataclasses.replace(d, constants={**d.constants, **consts},
                                              free_constants=()))


@cache
def _domain():
    import warnings

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
