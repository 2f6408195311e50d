"""veriplan in inspect-ai (the ``[inspect]`` extra): PlanBench tasks whose
scorer reads answers with veriplan's plan readers and judges them with its
validator, a solver that runs any veriplan PDDL method through inspect's
model, and an exporter that writes a veriplan run store as inspect eval logs.

- :mod:`veriplan.inspect.tasks`: ``planbench`` and the four PlanBench sets
  (``inspect eval veriplan/planbench_blocksworld --model ...``);
- :mod:`veriplan.inspect.scorer`: :func:`plan_validator`;
- :mod:`veriplan.inspect.solver`: :func:`veriplan_method` (``-T method=closed-loop``);
- :mod:`veriplan.inspect.backend`: the veriplan LLM backend over inspect's model;
- :mod:`veriplan.inspect.export`: :func:`export_runs` (``veriplan export-inspect``).

Every module here imports ``inspect_ai`` with absolute imports (the package's
name is ``veriplan.inspect``; the standard library's ``inspect`` is unaffected).
"""

from __future__ import annotations

from veriplan.errors import VeriplanError


class InspectUnavailableError(VeriplanError, ImportError):
    """inspect-ai is not installed (names the extra that installs it)."""

    def __init__(self, message: str, *, name: str) -> None:
        VeriplanError.__init__(self, message)
        self.name = name  # ImportError's field: the module that is missing


try:
    import inspect_ai  # noqa: F401
except ImportError:
    raise InspectUnavailableError(
        "veriplan.inspect needs inspect-ai, which is not installed: "
        "pip install 'veriplan[inspect]'", name="inspect_ai") from None

__all__ = ["InspectUnavailableError"]
