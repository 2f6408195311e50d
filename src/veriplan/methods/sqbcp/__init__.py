"""SQ-BCP: self-querying bidirectional categorical planning under hidden
preconditions. See README.md in this folder."""

from veriplan.methods.sqbcp.config import Config
from veriplan.methods.sqbcp.grounding import Request
from veriplan.methods.sqbcp.method import solve

PROBLEM = "hidden"
__all__ = ["Config", "Request", "solve"]
