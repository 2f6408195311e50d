"""Running LLM-written code: only ever in a child process with CPU, wall-clock,
memory and file-size limits, a scratch working directory, an environment
without secrets, no network (a network namespace where the kernel allows it,
and an audit hook refusing sockets, process creation and writes outside the
scratch directory in any case). The whole job runs in the child; only a JSON
result comes back.

``run_job(target, payload, limits)`` calls the trusted function ``target``
("module:function") with ``payload`` inside the child, after the guard is on;
what the function returns (JSON) is the result. Anything that goes wrong is an
:class:`Outcome` with a category, never an exception in veriplan.
"""

from veriplan.sandbox.runner import Limits, Outcome, run_job


def run_code(code: str, limits: Limits = Limits()) -> Outcome:
    """Run a snippet in the sandbox; its ``result`` variable comes back."""
    return run_job("veriplan.sandbox.snippet:run", {"code": code}, limits)


__all__ = ["Limits", "Outcome", "run_code", "run_job"]
