"""The tool parameters every tool shares, with the descriptions a client sees."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

Domain = Annotated[str | None, Field(description="the PDDL domain, as text")]
DomainPath = Annotated[str | None, Field(description="the PDDL domain file, a path inside "
                                                     "the server's roots")]
Problem = Annotated[str | None, Field(description="the PDDL problem, as text")]
ProblemPath = Annotated[str | None, Field(description="the PDDL problem file (in the roots)")]
Plan = Annotated[str | list[str] | None, Field(
    description="the plan: text (PDDL '(action args)' lines, the IPC plan format, or a "
                "model's free text with format 'planbench'), or a list of lines")]
PlanPath = Annotated[str | None, Field(description="a plan file (in the roots)")]
Format = Annotated[Literal["pddl", "planbench"], Field(
    description="pddl: (action args) lines; planbench: PlanBench natural language (needs "
                "a PlanBench config)")]
Config = Annotated[str | None, Field(description="a PlanBench YAML config, as text")]
ConfigPath = Annotated[str | None, Field(description="a PlanBench YAML config file (in the "
                                                     "roots)")]
