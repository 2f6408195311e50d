"""Interactive environments under partial observability, behind one interface
(:class:`Env`): ScienceWorld (the real Java engine) and ALFWorld-style
household games generated here and played with TextWorld. Each comes with a
sound observation grounder and query macro-actions. Names load on first use.
"""

from __future__ import annotations

import importlib

from veriplan.envs.base import Env, Fact, Observation, QueryResult, StepResult
from veriplan.errors import ConfigError

ENVS: dict[str, str] = {
    "scienceworld": "veriplan.envs.scienceworld:ScienceWorld",
    "household": "veriplan.envs.household.env:Household",
}


def make_env(name: str, **options) -> Env:
    if name not in ENVS:
        raise ConfigError(f"unknown environment {name!r}: use one of {', '.join(ENVS)}")
    module, _, cls = ENVS[name].partition(":")
    return getattr(importlib.import_module(module), cls)(**options)


__all__ = ["ENVS", "Env", "Fact", "Observation", "QueryResult", "StepResult", "make_env"]
