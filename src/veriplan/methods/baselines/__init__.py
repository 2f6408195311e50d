"""Baselines that the decomposition and agent methods are compared against, in
the same harness and action spaces: zero-shot chain-of-thought plan generation
(:mod:`.cot`) and ReAct with the model or the PDDL model as its environment
(:mod:`.react`). PlanBench's direct prompting is :mod:`veriplan.methods.direct`."""

from __future__ import annotations

from veriplan.methods.templates import renderer

render = renderer(__package__)
