"""Plan I/O: reading plans from model text and rendering tasks as prompts."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from veriplan.planio.parsed import ParsedPlan, UnreadLine
from veriplan.planio.pddl_plan import read_pddl_plan
from veriplan.planio.planbench import (
    PlanBenchConfig,
    read_planbench_plan,
    render_prompt,
    render_statement,
)

PlanFormat = Literal["pddl", "planbench"]


def parse_plan(text: str, task=None, *, format: PlanFormat = "pddl",
               config: PlanBenchConfig | str | Path | None = None) -> ParsedPlan:
    """Read a plan from text. ``format="pddl"`` reads ``(action args)`` lines;
    ``format="planbench"`` reads natural language with a PlanBench config
    (required) and the task (required, for its objects).

    Lines that cannot be read come back in ``ParsedPlan.unread``, never dropped.
    """
    if format == "pddl":
        names = set(task.schemas) if task is not None else None
        return read_pddl_plan(text, names)
    if format == "planbench":
        if config is None or task is None:
            raise ValueError("format='planbench' needs the task and a PlanBench config")
        cfg = config if isinstance(config, PlanBenchConfig) else PlanBenchConfig.from_yaml(config)
        return read_planbench_plan(text, cfg, list(task.objects))
    raise ValueError(f"unknown plan format {format!r}: use 'pddl' or 'planbench'")


__all__ = [
    "ParsedPlan", "PlanBenchConfig", "UnreadLine", "parse_plan", "read_pddl_plan",
    "read_planbench_plan", "render_prompt", "render_statement",
]
