"""Plan I/O: reading plans from model text and rendering tasks as prompts."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from veriplan.planio.parsed import ParsedPlan, UnreadLine
from veriplan.planio.pddl_plan import read_pddl_plan, read_with, schema_vocabulary
from veriplan.planio.planbench import (
    PlanBenchConfig,
    read_planbench_plan,
    render_prompt,
    render_statement,
)

PlanFormat = Literal["pddl", "planbench"]


def parse_plan(text: str, task=None, *, format: PlanFormat = "pddl",
               config: PlanBenchConfig | str | Path | None = None) -> ParsedPlan:
    """Read a plan from model text. ``format="pddl"`` reads ``(action args)``
    lines (with ``config``, objects may also be named in the config's
    encodings); ``format="planbench"`` reads natural language with a PlanBench
    config (required) and the task (required, for its objects), and PDDL lines
    too.

    Lines that look like actions but cannot be read come back in
    ``ParsedPlan.unread`` (a plan with one is not valid), prose in
    ``ParsedPlan.prose``; nothing is dropped silently.
    """
    cfg = (config if isinstance(config, PlanBenchConfig) or config is None
           else PlanBenchConfig.from_yaml(config))
    if format == "pddl":
        if task is None:
            return read_pddl_plan(text)
        if cfg is None:
            return read_with(text, schema_vocabulary(task.schemas), objects=task.objects)
        return read_pddl_plan(text, task.schemas, objects=task.objects, config=cfg,
                              max_args=lambda: _max_args(task))
    if format == "planbench":
        if cfg is None or task is None:
            raise ValueError("format='planbench' needs the task and a PlanBench config")
        return read_planbench_plan(text, cfg, list(task.objects))
    raise ValueError(f"unknown plan format {format!r}: use 'pddl' or 'planbench'")


def _max_args(task) -> int:
    return max((len(s.params) for s in task.schemas.values()), default=0)


__all__ = [
    "ParsedPlan", "PlanBenchConfig", "UnreadLine", "parse_plan", "read_pddl_plan",
    "read_planbench_plan", "render_prompt", "render_statement",
]
