"""Generate, verify, back-prompt: PlanBench's back-prompting loop."""

from veriplan.methods.backprompt.config import BackpromptConfig
from veriplan.methods.backprompt.config import BackpromptConfig as Config
from veriplan.methods.backprompt.method import solve

PROBLEM = "pddl"
__all__ = ["BackpromptConfig", "Config", "solve"]
