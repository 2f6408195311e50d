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

A method is a plug-in: besides ``solve`` and ``Config``, its registration (a
:class:`MethodSpec`) may name the rest of what it brings, and the harness, the
report and the command line learn of it only from there (none of them names a
method):

- ``metrics``: the metrics its report section computes, by name (a
  :class:`~enum.StrEnum` of report.json's field names, ``Metric`` in the
  method's ``metrics.py``); None for a method the generic summary alone reports;
- ``report``: its section of ``veriplan report`` (a :data:`ReportFn`: the
  store's records and the report's folder -> a :class:`ReportSection`);
- ``backends``: its controlled stand-in models, backend name ->
  ``"module:Class"`` (the LLM layer finds the package's own in
  :data:`veriplan.registry.PLUGINS` before any method is imported; one a
  method registers at run time is added to the backends by
  :func:`register_method`);
- ``commands``: a command module (``add_parsers(subparsers)`` and
  ``COMMANDS``, command name -> handler) whose commands ``veriplan`` offers;
- ``sweeps``: a folder of sweep files (``*.toml``), or a glob of them, that
  ``veriplan bench --matrix METHOD:NAME`` runs by name.

``report`` and ``commands`` may be given as ``"module:attr"`` paths, imported
when the report or the command line is built: a method's module never imports
the harness or the command line (tests/test_layers.py).

A method module declares these as ``METRICS``, ``REPORT``, ``BACKENDS``,
``COMMANDS`` and ``SWEEPS`` beside ``solve``, ``Config`` and ``PROBLEM``. The
registry maps names to modules (imported lazily); the entry-point group
``veriplan.methods`` and :func:`register_method` add more. The report's
sections and the method commands follow the order in which the methods are
declared (:meth:`~veriplan.registry.Registry.declared`).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from veriplan.core.jsonvalue import JSONValue
from veriplan.core.problems import ProblemKind
from veriplan.errors import ConfigError
from veriplan.methods.records import Observer
from veriplan.methods.result import PlanningProblem, Run, SolveResult, as_problem
from veriplan.methods.settings import coerce
from veriplan.registry import Registry, resolve

if TYPE_CHECKING:
    import argparse

    from veriplan.bench.store import UnitRecord
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
class ReportSection:
    """A method's part of ``veriplan report``: Markdown appended to report.md,
    the entries it adds to report.json (key -> value, also when the store has
    no unit of the method: the keys are always there), and the plots it wrote
    into the report's folder (file names, shown in report.html)."""

    markdown: str = ""
    data: Mapping[str, JSONValue] = field(default_factory=dict)
    plots: Sequence[str] = ()


# A method's report section: the store's records (UnitRecord, in unit order) and
# the report's folder -> its section.
ReportFn = Callable[[list["UnitRecord"], Path], ReportSection]


class CommandModule(Protocol):
    """What a method's ``commands`` names: a module (or any object) that adds
    its commands to ``veriplan``'s sub-parsers and maps each to its handler
    (the parsed arguments -> the exit code). A command ``X`` with
    sub-commands keeps the sub-command in ``args.X_command`` (the command line
    names it in its errors)."""

    COMMANDS: Mapping[str, Callable[[argparse.Namespace], int]]

    def add_parsers(self, sub: argparse._SubParsersAction[argparse.ArgumentParser], /,
                    ) -> None: ...


def _source_root() -> Path:
    """The checkout this package runs from (the folder holding ``src/``), where
    a built-in method's relative ``sweeps`` path is read."""
    return Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class MethodSpec:
    """A method's registration: what runs it and, optionally, what it brings
    (see the module's docstring)."""

    name: str
    solve: SolveFn
    config_cls: type[MethodConfig]
    problem: ProblemKind = ProblemKind.PDDL
    metrics: type[StrEnum] | None = None
    report: ReportFn | str | None = None
    backends: Mapping[str, str] = field(default_factory=dict)
    commands: CommandModule | str | None = None
    sweeps: str | Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "problem", ProblemKind(self.problem))
        object.__setattr__(self, "backends", dict(self.backends))

    def report_section(self) -> ReportFn | None:
        """The method's report section (a path imported now), or None."""
        return resolve(self.report) if isinstance(self.report, str) else self.report

    def command_module(self) -> CommandModule | None:
        """The method's command module (a path imported now), or None."""
        return resolve(self.commands) if isinstance(self.commands, str) else self.commands

    def sweep_files(self) -> dict[str, Path]:
        """The method's sweep files by name (the file's stem), sorted; a
        relative ``sweeps`` is read from the source checkout (none when the
        package runs from elsewhere)."""
        if self.sweeps is None:
            return {}
        where = Path(self.sweeps)
        if not where.is_absolute():
            where = _source_root() / where
        files = where.glob("*.toml") if where.is_dir() else where.parent.glob(where.name)
        return {f.stem: f for f in sorted(files) if f.is_file()}

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


def _spec(name: str, obj: Any) -> MethodSpec:  # a module or a MethodSpec (loaded, untyped)
    if isinstance(obj, MethodSpec):
        return obj
    return MethodSpec(name, obj.solve, obj.Config, getattr(obj, "PROBLEM", ProblemKind.PDDL),
                      metrics=getattr(obj, "METRICS", None), report=getattr(obj, "REPORT", None),
                      backends=getattr(obj, "BACKENDS", {}),
                      commands=getattr(obj, "COMMANDS", None), sweeps=getattr(obj, "SWEEPS", None))


# In this order the report shows the methods' sections (and `veriplan --help` their
# commands): AutoToS, SQ-BCP, AEC, then the plan-repair methods on PDDL tasks.
METHODS: Registry[MethodSpec] = Registry("method", {
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
    "backprompt": "veriplan.methods.backprompt",
    "direct": "veriplan.methods.direct",
    "closed-loop": "veriplan.methods.closed_loop",
    "drip": "veriplan.methods.drip",
    "cot": "veriplan.methods.baselines.cot",
    "react": "veriplan.methods.baselines.react",
}, group="veriplan.methods", load=_spec)


def register_method(name: str, solve: SolveFn, config_cls: type[MethodConfig],
                    problem: ProblemKind | str = ProblemKind.PDDL, *,
                    metrics: type[StrEnum] | None = None, report: ReportFn | str | None = None,
                    backends: Mapping[str, str] | None = None,
                    commands: CommandModule | str | None = None,
                    sweeps: str | Path | None = None) -> MethodSpec:
    """Add a method at run time (tests, benchmarks, notebooks, another
    package's import), with what it brings (see :class:`MethodSpec`); its
    ``backends`` are added to the LLM layer's backends. Returns the spec."""
    spec = MethodSpec(name, solve, config_cls, ProblemKind(problem), metrics=metrics,
                      report=report, backends=backends or {}, commands=commands, sweeps=sweeps)
    if spec.backends:
        from veriplan.llm.registry import BACKENDS

        for backend, target in spec.backends.items():
            BACKENDS.register(backend, target)
    METHODS.register(name, spec)
    return spec


def method_specs() -> list[MethodSpec]:
    """Every registered method's spec, in the order the methods are declared
    (each method's module imported)."""
    return [METHODS.get(name) for name in METHODS.declared()]


def methods_for(problem: ProblemKind | str) -> list[str]:
    """The registered methods that plan for ``problem``, in the order they are
    declared (each method's module imported)."""
    kind = ProblemKind(problem)
    return [spec.name for spec in method_specs() if spec.problem is kind]


def available_methods() -> list[str]:
    return METHODS.names()


def get_method(name: str) -> MethodSpec:
    return METHODS.get(name)


__all__ = ["DEFAULT_METHOD", "METHODS", "CommandModule", "MethodConfig", "MethodSpec",
           "PlanningProblem", "ReportFn", "ReportSection", "Run", "SolveFn", "SolveResult",
           "as_problem", "available_methods", "get_method", "method_specs", "methods_for",
           "register_method"]
