"""AEC: active epistemic control (query or simulate, commit only on grounded
evidence) in the environments of :mod:`veriplan.envs`. See README.md in this
folder; the baselines run in the same harness are in :mod:`.baselines`."""

from pathlib import Path

from veriplan.methods.aec.config import Config
from veriplan.methods.aec.domain import EnvModel, register_env_model
from veriplan.methods.aec.method import PROBLEM, solve
from veriplan.methods.aec.metrics import Metric

# What AEC brings besides solve (veriplan.methods.MethodSpec): the report section of
# it and its baselines, its controlled stand-in model, `veriplan aec`, its sweeps.
METRICS = Metric
REPORT = "veriplan.methods.aec.report:report_section"
BACKENDS = {"controlled-aec": "veriplan.methods.aec.controlled:ControlledAECBackend"}
COMMANDS = "veriplan.methods.aec.commands"
SWEEPS = Path(__file__).parent / "sweeps"

__all__ = ["BACKENDS", "COMMANDS", "METRICS", "Config", "EnvModel", "Metric", "PROBLEM", "REPORT",
           "SWEEPS", "register_env_model", "solve"]
