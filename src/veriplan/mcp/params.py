"""The tool parameters, with the descriptions and ranges a client sees: each made
from its declaration in :data:`veriplan.core.arguments.ARGUMENTS` (the meaning,
and a number's range as the schema's ``minimum`` / ``exclusiveMinimum``), so
the published input schemas and the checks every face makes cannot drift."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from veriplan.core.arguments import ARGUMENTS, ArgumentKind


def _field(name: str, description: str | None = None) -> object:
    a = ARGUMENTS[name]
    text = description or a.meaning
    if a.kind is ArgumentKind.PATH:
        text += " (a path inside the server's roots)"
    if a.kind not in (ArgumentKind.INTEGER, ArgumentKind.NUMBER):
        return Field(description=text)
    bound: dict[str, float] = {}
    if a.minimum is not None:
        bound["gt" if a.above else "ge"] = a.minimum
    if a.maximum is not None:
        bound["le"] = a.maximum
    unit = f" ({a.unit})" if a.unit else ""
    if a.kind is ArgumentKind.NUMBER:
        return Field(description=text + unit, allow_inf_nan=False, **bound)  # type: ignore[arg-type]
    return Field(description=text + unit, **bound)  # type: ignore[arg-type]


Domain = Annotated[str | None, _field("domain")]
DomainPath = Annotated[str | None, _field("domain_path")]
Problem = Annotated[str | None, _field("problem")]
ProblemPath = Annotated[str | None, _field("problem_path")]
Plan = Annotated[str | list[str] | None, _field("plan")]
PlanPath = Annotated[str | None, _field("plan_path")]
Format = Annotated[Literal["pddl", "planbench"], _field("format")]
Config = Annotated[str | None, _field("planbench_config")]
ConfigPath = Annotated[str | None, _field("planbench_config_path")]
Trace = Annotated[bool, _field("trace")]
MaxStates = Annotated[int | None, _field("max_states")]
Offset = Annotated[int, _field("offset")]
Limit = Annotated[int, _field("limit")]
Planner = Annotated[str, _field("planner")]
TimeLimit = Annotated[float | None, _field("time_limit")]
Tolerance = Annotated[float | None, _field("tolerance")]
StepsFirst = Annotated[str | list[str] | None, _field(
    "plan", "steps to execute first (PDDL lines); none: the initial state")]
Settings = Annotated[dict[str, str] | None, _field("settings")]
BatchDomainPath = Annotated[str | None, _field(
    "domain_path", "the domain file of every item that names none")]
BatchProblemPath = Annotated[str | None, _field(
    "problem_path", "the problem file of every item that names none")]
