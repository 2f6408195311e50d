"""Generate, verify, back-prompt: PlanBench's back-prompting loop."""

from veriplan.core.problems import ProblemKind
from veriplan.methods.backprompt.config import BackpromptConfig
from veriplan.methods.backprompt.config import BackpromptConfig as Config
from veriplan.methods.backprompt.method import solve

PROBLEM = ProblemKind.PDDL
__all__ = ["BackpromptConfig", "Config", "solve"]
