"""Generate, verify, back-prompt: PlanBench's back-prompting loop."""

from veriplan.methods.backprompt.config import BackpromptConfig
from veriplan.methods.backprompt.method import solve

__all__ = ["BackpromptConfig", "solve"]
