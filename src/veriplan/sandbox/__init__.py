"""Running LLM-written code: only ever inside an operating-system sandbox
(bubblewrap: no network, a private /proc and file system holding only the
read-only Python installation and a scratch tmpfs, an empty environment, a
user id of its own, rlimits, a seccomp filter; see :mod:`veriplan.sandbox.bwrap`),
one job per child process. Only JSON lines come back (:class:`Job`); a call of
untrusted code is timed from outside through a shared heartbeat and the whole
sandbox is killed when it overruns. Without ``bwrap`` veriplan refuses to run
model-written code (:class:`SandboxUnavailableError`) unless
``VERIPLAN_SANDBOX=process`` opts into the weaker process sandbox.

``run_job(target, payload, limits)`` calls the trusted function ``target``
("module:function") with ``payload`` inside the child, after the audit hook is
on; what the function returns (JSON) is the result. Anything that goes wrong is
an :class:`Outcome` with a category, never an exception in veriplan.
"""

from veriplan.sandbox.bwrap import SandboxUnavailableError, available, mode
from veriplan.sandbox.runner import Ended, Job, Limits, Outcome, Stalled, StreamError, run_job


def run_code(code: str, limits: Limits = Limits()) -> Outcome:
    """Run a snippet in the sandbox; its ``result`` variable comes back."""
    return run_job("veriplan.sandbox.snippet:run", {"code": code}, limits)


__all__ = ["Ended", "Job", "Limits", "Outcome", "SandboxUnavailableError", "Stalled",
           "StreamError", "available", "mode", "run_code", "run_job"]
