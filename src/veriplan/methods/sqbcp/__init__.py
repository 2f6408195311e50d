"""SQ-BCP: self-querying bidirectional categorical planning under hidden
preconditions. See README.md in this folder."""

from veriplan.core.problems import ProblemKind
from veriplan.methods.sqbcp.config import Config
from veriplan.methods.sqbcp.method import solve
from veriplan.methods.sqbcp.request import Request

PROBLEM = ProblemKind.HIDDEN
# What SQ-BCP brings besides solve (veriplan.methods.MethodSpec): the report section of
# it and its baselines, its controlled stand-in model, `veriplan ask`, its sweeps.
REPORT = "veriplan.bench.report_hidden:report_section"
BACKENDS = {"controlled": "veriplan.methods.sqbcp.controlled:ControlledBackend"}
COMMANDS = "veriplan.cli.ask_commands"
SWEEPS = "benchmarks/sweeps/sqbcp_*.toml"
__all__ = ["BACKENDS", "COMMANDS", "Config", "REPORT", "Request", "SWEEPS", "solve"]
