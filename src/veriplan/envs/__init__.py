"""Interactive environments under partial observability, behind one interface
(:class:`Env`): ScienceWorld (the real Java engine) and ALFWorld-style
household games generated here and played with TextWorld. Each comes with a
sound observation grounder and query macro-actions. Names load on first use;
other packages add environments through the ``veriplan.envs`` entry-point group.
"""

from __future__ import annotations

from veriplan.envs.base import Env, EnvTask, Fact, Observation, QueryResult, StepResult
from veriplan.registry import Registry

ENVS: Registry[type] = Registry("environment", {
    "scienceworld": "veriplan.envs.scienceworld:ScienceWorld",
    "household": "veriplan.envs.household.env:Household",
}, group="veriplan.envs")


def make_env(name: str, **options) -> Env:
    """A new environment of the class registered as ``name``."""
    return ENVS.get(name)(**options)


__all__ = ["ENVS", "Env", "EnvTask", "Fact", "Observation", "QueryResult", "StepResult", "make_env"]
