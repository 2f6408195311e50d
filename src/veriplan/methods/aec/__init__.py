"""AEC: active epistemic control (query or simulate, commit only on grounded
evidence) in the environments of :mod:`veriplan.envs`. See README.md in this
folder; the baselines run in the same harness are in :mod:`.baselines`."""

from veriplan.methods.aec.config import Config
from veriplan.methods.aec.domain import EnvModel, register_env_model
from veriplan.methods.aec.method import PROBLEM, solve

__all__ = ["Config", "EnvModel", "PROBLEM", "register_env_model", "solve"]
