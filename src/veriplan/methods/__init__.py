"""The planning methods, one subpackage each, found through a registry.

The method contract: a method module exposes

- ``Config``: a frozen dataclass with the paper's defaults, checking its own
  values (:mod:`veriplan.methods.settings`);
- ``solve(problem, llm, config=Config(), *, observer=None) -> SolveResult``:
  ``problem`` is what the method plans for (a :class:`PlanningProblem`, or a
  bare task, for the PDDL methods), ``llm`` an :class:`~veriplan.llm.LLM` or a
  session of one (the run takes its own session, so its usage is exact), and
  ``observer`` receives :class:`~veriplan.methods.records.Event` s;
- ``PROBLEM``: the :class:`~veriplan.core.problems.ProblemKind` it takes
  (PDDL unless it says otherwise; the harness builds it from a dataset
  instance with ``instance.problem(kind)``).

``solve`` has the shape of :class:`SolveFn`.

The registry maps names to modules (imported lazily); the entry-point group
``veriplan.methods`` and :func:`register_method` add more.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from veriplan.core.problems import ProblemKind
from veriplan.errors import ConfigError
from veriplan.methods.records import Observer
from veriplan.methods.result import PlanningProblem, Run, SolveResult, as_problem
from veriplan.methods.settings import coerce
from veriplan.registry import Registry

if TYPE_CHECKING:
    from veriplan.domains.hidden.task import HiddenTask
    from veriplan.envs.base import EnvTask
    from veriplan.llm.client import LLM
    from veriplan.methods.autotos.problem import AutoToSProblem
    from veriplan.pddl.task import Task

    # What a method plans for, by ProblemKind: PDDL (a PlanningProblem or a bare
    # Task), AUTOTOS, HIDDEN, ENV.
    MethodProblem = PlanningProblem | Task | AutoToSProblem | HiddenTask | EnvTask

DEFAULT_METHOD = "closed-loop"


class MethodConfig(Protocol):
    """A method's ``Config``: a frozen dataclass of the paper's defaults."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[object]]]


class SolveFn(Protocol):
    """Every method's ``solve``."""

    def __call__(self, problem: MethodProblem, llm: LLM, config: MethodConfig, /, *,
                 observer: Observer | None = None) -> SolveResult: ...


@dataclass(frozen=True)
class MethodSpec:
    name: str
    solve: SolveFn
    config_cls: type[MethodConfig]
    problem: ProblemKind = ProblemKind.PDDL

    def __post_init__(self) -> None:
        object.__setattr__(self, "problem", ProblemKind(self.problem))

    def settings(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self.config_cls)]

    def make_config(self, options: Mapping[str, object] | None = None) -> MethodConfig:
        """The method's config with ``options`` (strings from the command line
        are converted to the fields' types); a wrong key or value is a
        :class:`ConfigError` naming the method and its settings."""
        fields = self.settings()
        hints = typing.get_type_hints(self.config_cls)
        values = {}
        for key, raw in (options or {}).items():
            if key not in fields:
                raise ConfigError(f"method {self.name} has no setting {key!r}; its settings "
                                  f"are {', '.join(fields)}")
            values[key] = coerce(raw, hints[key], key)
        try:
            return self.config_cls(**values)
        except ConfigError as exc:
            raise ConfigError(f"method {self.name}: {exc} (its settings are "
                              f"{', '.join(fields)})") from None


def _spec(name: str, obj: Any) -> MethodSpec:  # a module or a MethodSpec
    if isinstance(obj, MethodSpec):
        return obj
    return MethodSpec(name, obj.solve, obj.Config, getattr(obj, "PROBLEM", ProblemKind.PDDL))


METHODS: Registry[MethodSpec] = Registry("method", {
    "backprompt": "veriplan.methods.backprompt",
    "direct": "veriplan.methods.direct",
    "closed-loop": "veriplan.methods.closed_loop",
    "drip": "veriplan.methods.drip",
    "cot": "veriplan.methods.baselines.cot",
    "react": "veriplan.methods.baselines.react",
    "autotos": "veriplan.methods.autotos",
    "sqbcp": "veriplan.methods.sqbcp",
    # SQ-BCP's baselines on hidden-precondition tasks (same prompts, same oracle)
    "hidden-direct": "veriplan.methods.baselines.hidden:DIRECT",
    "hidden-cot": "veriplan.methods.baselines.hidden:COT",
    "hidden-tot": "veriplan.methods.baselines.hidden:TOT",
    "hidden-react": "veriplan.methods.baselines.hidden:REACT",
    "self-ask": "veriplan.methods.baselines.hidden:SELF_ASK",
    "hidden-tos": "veriplan.methods.baselines.hidden_tos:TOS",  # hidden-fact PDDL only
    "aec": "veriplan.methods.aec",
    "aec-direct": "veriplan.methods.aec.baselines:DIRECT",
    "aec-react": "veriplan.methods.aec.baselines:REACT",
    "wkm": "veriplan.methods.aec.baselines:WKM",
    "query-only": "veriplan.methods.aec.baselines:QUERY_ONLY",
    "walle-standin": "veriplan.methods.aec.walle:WALLE",
}, group="veriplan.methods", load=_spec)


def register_method(name: str, solve: SolveFn, config_cls: type[MethodConfig],
                    problem: ProblemKind | str = ProblemKind.PDDL) -> None:
    """Add a method at run time (tests, benchmarks, notebooks)."""
    METHODS.register(name, MethodSpec(name, solve, config_cls, ProblemKind(problem)))


def available_methods() -> list[str]:
    return METHODS.names()


def get_method(name: str) -> MethodSpec:
    return METHODS.get(name)


__all__ = ["DEFAULT_METHOD", "METHODS", "MethodConfig", "MethodSpec", "PlanningProblem", "Run",
           "SolveFn", "SolveResult", "as_problem", "available_methods", "get_method",
           "register_method"]
