"""Generate, verify, back-prompt: PlanBench's back-prompting loop."""

from veriplan.methods.backprompt.config import BackpromptConfig
from veriplan.methods.backprompt.config import BackpromptConfig as Config
from veriplan.methods.backprompt.method import run, solve

__all__ = ["BackpromptConfig", "Config", "run", "solve"]
