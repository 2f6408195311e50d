"""Plan I/O: reading plans from model text and rendering tasks as prompts."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Literal

from veriplan.planio.parsed import ParsedPlan, UnreadLine
from veriplan.planio.pddl_plan import read_pddl_plan, read_with, schema_vocabulary

if TYPE_CHECKING:  # (pathlib is not imported: a batch run does without its start-up)
    from pathlib import Path

    from veriplan.planio.planbench import (
        PlanBenchConfig,
        read_planbench_plan,
        render_prompt,
        render_statement,
    )

# The PlanBench side (natural language, YAML configs) is imported on first use:
# reading PDDL plans, as ``veriplan validate --batch`` does by the thousand, needs
# neither it nor the YAML reader.
_LAZY = ("PlanBenchConfig", "read_planbench_plan", "render_prompt", "render_statement")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module("veriplan.planio.planbench"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'veriplan.planio' has no attribute {name!r}")


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
    if format == "pddl" and config is None:
        if task is None:
            return read_pddl_plan(text)
        return read_with(text, schema_vocabulary(task.schemas), objects=task.objects)
    from veriplan.planio.planbench import PlanBenchConfig, read_planbench_plan

    cfg = (config if isinstance(config, PlanBenchConfig) or config is None
           else PlanBenchConfig.from_yaml(config))
    if format == "pddl":
        if task is None:
            return read_pddl_plan(text)
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
