"""SQ-BCP: self-querying bidirectional categorical planning under hidden
preconditions. See README.md in this folder."""

from pathlib import Path

from veriplan.core.problems import ProblemKind
from veriplan.methods.sqbcp.config import Config
from veriplan.methods.sqbcp.method import solve
from veriplan.methods.sqbcp.metrics import Metric
from veriplan.methods.sqbcp.request import Request

PROBLEM = ProblemKind.HIDDEN
# What SQ-BCP brings besides solve (veriplan.methods.MethodSpec): the report section of
# it and its baselines, its controlled stand-in model, `veriplan ask`, its sweeps.
METRICS = Metric
REPORT = "veriplan.methods.sqbcp.report:report_section"
BACKENDS = {"controlled": "veriplan.methods.sqbcp.controlled:ControlledBackend"}
COMMANDS = "veriplan.methods.sqbcp.commands"
SWEEPS = Path(__file__).parent / "sweeps"
__all__ = ["BACKENDS", "COMMANDS", "METRICS", "Config", "Metric", "REPORT", "Request", "SWEEPS",
           "solve"]
