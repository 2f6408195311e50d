"""Interactive environments under partial observability, behind one interface
(:class:`Env`): ScienceWorld (the real Java engine) and ALFWorld-style
household games generated here and played with TextWorld. Each comes with a
sound observation grounder and query macro-actions. Names load on first use;
other packages add environments through the ``veriplan.envs`` entry-point group.
"""

from __future__ import annotations

from veriplan.envs.base import Env, EnvTask, Fact, Observation, QueryResult, StepResult
from veriplan.envs.registry import ENVS, make_env

__all__ = ["ENVS", "Env", "EnvTask", "Fact", "Observation", "QueryResult", "StepResult", "make_env"]
