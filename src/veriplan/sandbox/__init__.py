"""Running LLM-written code: only ever inside an operating-system sandbox
(bubblewrap: no network, a private /proc and file system holding only the
read-only Python installation and a scratch tmpfs, an empty environment, a
user id of its own, rlimits, a seccomp filter; see :mod:`veriplan.sandbox.bwrap`),
one job per child process. Only JSON lines come back (:class:`Job`); a call of
untrusted code is timed from outside, on the parent's clock (a shared
heartbeat only names the call), and the whole sandbox is killed when it
overruns; an answer past its cap kills it too (``too_large``). Without
``bwrap`` veriplan refuses to run model-written code
(:class:`SandboxUnavailableError`) unless ``VERIPLAN_SANDBOX=process`` opts
into the weaker process sandbox.

``run_job(target, payload, limits)`` calls the trusted function ``target``
("module:function") with ``payload`` inside the child, after the audit hook is
on; what the function returns (JSON) is the result. Anything that goes wrong is
an :class:`Outcome` with a category, never an exception in veriplan.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from veriplan.sandbox.runner import Limits, Outcome

# Names load on first use: the sandbox child imports only veriplan.sandbox.child.
_LAZY = {"SandboxUnavailableError": "veriplan.sandbox.bwrap",
         "available": "veriplan.sandbox.bwrap", "mode": "veriplan.sandbox.bwrap",
         "Category": "veriplan.sandbox.runner", "Overran": "veriplan.sandbox.runner",
         "Ended": "veriplan.sandbox.runner", "Job": "veriplan.sandbox.runner",
         "Limits": "veriplan.sandbox.runner", "Outcome": "veriplan.sandbox.runner",
         "Stalled": "veriplan.sandbox.runner", "StreamError": "veriplan.sandbox.runner",
         "run_job": "veriplan.sandbox.runner"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run_code(code: str, limits: Limits | None = None) -> Outcome:
    """Run a snippet in the sandbox; its ``result`` variable comes back (an
    :class:`Outcome`)."""
    from veriplan.sandbox.runner import Limits, run_job

    return run_job("veriplan.sandbox.snippet:run", {"code": code}, limits or Limits())


__all__ = sorted([*_LAZY, "run_code"])
