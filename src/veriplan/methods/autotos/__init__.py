"""AutoToS: LLM-written successor functions and goal tests, checked by unit
tests and soundness/completeness feedback, then used by BFS/DFS. See
README.md in this folder.

Names load on first use: the sandbox child imports only ``harness``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from veriplan.methods.autotos.metrics import Metric

_LAZY = {"Config": "veriplan.methods.autotos.config",
         "reference": "veriplan.methods.autotos.method",
         "run_loop": "veriplan.methods.autotos.method",
         "solve_domain": "veriplan.methods.autotos.method",
         "solve": "veriplan.methods.autotos.method",
         "AutoToSProblem": "veriplan.methods.autotos.problem",
         "AutoToSResult": "veriplan.methods.autotos.problem"}
PROBLEM = "autotos"
# What AutoToS brings besides solve (veriplan.methods.MethodSpec): the paper's tables
# in the report, and `veriplan autotos`.
METRICS = Metric
REPORT = "veriplan.methods.autotos.report:section"
COMMANDS = "veriplan.methods.autotos.commands"
# the controlled function writer (veriplan.registry.PLUGINS declares it for the LLM layer)
BACKENDS = {"controlled-autotos": "veriplan.methods.autotos.controlled:ControlledAutoToSBackend"}
# the controlled study's sweep files (`veriplan bench --matrix autotos:NAME`)
SWEEPS = Path(__file__).parent / "sweeps"


def __getattr__(name: str) -> Any:  # whatever the lazy name is: a class, a function
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = sorted(_LAZY)
