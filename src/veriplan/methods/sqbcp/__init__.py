"""SQ-BCP: self-querying bidirectional categorical planning under hidden
preconditions. See README.md in this folder."""

from veriplan.core.problems import ProblemKind
from veriplan.methods.sqbcp.config import Config
from veriplan.methods.sqbcp.method import solve
from veriplan.methods.sqbcp.request import Request

PROBLEM = ProblemKind.HIDDEN
__all__ = ["Config", "Request", "solve"]
