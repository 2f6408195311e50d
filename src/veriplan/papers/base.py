"""A paper as data: its claims, each with how its number is measured from a
group of units (one model kind and model: never pooled), the sweeps of its
headline protocol and of its quick subset, and the commands that made its
committed stores. :class:`StorePaper` implements
:class:`~veriplan.papers.protocol.Paper` from these; a method's ``paper.py``
declares one.

A measure returns a :class:`~veriplan.papers.claims.Measured`, or a string
saying why the units at hand cannot measure the claim (the row is then
NOT_MEASURABLE with that reason), or None when the group holds nothing for
the claim (no row for that group). An ``across`` measure sees every group at
once (a backbone table: several models)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from veriplan.bench.units import SweepPlan
from veriplan.papers.claims import Claim, ClaimResult, Measured, ModelKind, judge
from veriplan.papers.measure import Unit, groups, read_units
from veriplan.papers.protocol import RunRequest, RunSummary, run_command, run_plans

Outcome = Measured | str | None
# the command that made some units' stores (a measure names the units it counted)
CommandFor = Callable[[Sequence[Unit]], str]
Measure = Callable[[Sequence[Unit], CommandFor], Outcome]
Groups = Mapping[tuple[ModelKind, str], Sequence[Unit]]
Across = Callable[[Groups, CommandFor], Outcome]


@dataclass(frozen=True)
class ClaimSpec:
    """A claim and how it is measured: ``measure`` on each group of units (one
    model kind and model), or ``across`` on all groups together; neither: the
    claim is never measurable here (``claim.needs`` says why)."""

    claim: Claim
    measure: Measure | None = None
    across: Across | None = None


@dataclass
class StorePaper:
    """A :class:`~veriplan.papers.protocol.Paper` built from claim specs and
    sweep plans. ``plans(request)`` gives the sweeps of the headline protocol
    (``request.quick``: of the stated quick subset); ``commands`` maps a
    committed store's directory name to the command that made it."""

    name: str
    title: str
    quick: str
    controlled: str
    committed: tuple[str, ...]
    specs: tuple[ClaimSpec, ...]
    plans: Callable[[RunRequest], list[SweepPlan]]
    commands: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ids = [s.claim.id for s in self.specs]
        if len(ids) != len(set(ids)):
            raise ValueError(f"paper {self.name}: claim ids repeat")

    def claims(self) -> list[Claim]:
        return [s.claim for s in self.specs]

    def run(self, request: RunRequest, store: Path) -> RunSummary:
        return run_plans(self, self.plans(request), store, request)

    def command_for(self, units: Sequence[Unit]) -> str:
        """The command(s) that made these units' stores."""
        out: list[str] = []
        for store in dict.fromkeys(u.store for u in units):
            cmd = self.commands.get(store.name) or run_command(
                store, f"veriplan paper {self.name} --no-run --store {store}")
            out.append(cmd)
        return "; ".join(out)

    def results(self, stores: Sequence[Path]) -> list[ClaimResult]:
        units = read_units(stores)
        return self.results_of(units)

    def results_of(self, units: Sequence[Unit]) -> list[ClaimResult]:
        by_group = groups(units)
        out: list[ClaimResult] = []
        for spec in self.specs:
            if spec.across is not None:
                out += _results(spec.claim, [spec.across(by_group, self.command_for)])
            if spec.measure is not None:
                measure = spec.measure
                out += _results(spec.claim, [measure(g, self.command_for)
                                             for g in by_group.values()])
        return out


def _results(claim: Claim, outcomes: Sequence[Outcome]) -> list[ClaimResult]:
    out = []
    for o in outcomes:
        if o is None:
            continue
        out.append(judge(claim, None, o) if isinstance(o, str) else judge(claim, o))
    return out


__all__ = ["Across", "ClaimSpec", "CommandFor", "Groups", "Measure", "Outcome", "StorePaper"]
