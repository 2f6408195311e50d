"""Symbol-agnostic closed-loop generate-verify-repair planning (Du, Wang and
Hashimoto, "Lexical-Prior-Free Planning", CMC 2026)."""

from pathlib import Path

from veriplan.core.problems import ProblemKind
from veriplan.methods.closed_loop.config import Config
from veriplan.methods.closed_loop.method import solve
from veriplan.methods.closed_loop.metrics import Metric

PROBLEM = ProblemKind.PDDL
# What the closed loop brings besides solve (veriplan.methods.MethodSpec): the report
# section of the controlled-model runs of it, DRIP and direct generation, and the
# controlled model they share, and their sweeps.
METRICS = Metric
REPORT = "veriplan.methods.closed_loop.report:report_section"
BACKENDS = {"controlled-plan": "veriplan.methods.controlled_plan:ControlledPlanBackend"}
SWEEPS = Path(__file__).parent / "sweeps"
__all__ = ["BACKENDS", "METRICS", "Config", "Metric", "REPORT", "SWEEPS", "solve"]
