"""What AutoToS plans for, and what its result means."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from veriplan.core.verdict import Scope
from veriplan.methods.result import SolveResult


@dataclass(frozen=True)
class AutoToSProblem:
    """A search domain (``24game``, ``blocksworld``, ``crossword``,
    ``prontoqa``, ``sokoban``) and the data folder holding ``autotos/``: the
    model writes the domain's code once and search solves all its instances."""

    domain: str
    data_dir: Path


@dataclass
class AutoToSResult(SolveResult):
    """One AutoToS run. ``verified`` means every evaluation instance of the
    domain was solved by search with the model's components and each solution
    validated independently of them (``scope`` is :attr:`Scope.SEARCH_COMPONENTS`);
    ``plan`` is empty (there is no single plan). ``accuracy`` is the share of
    instances solved and validated at each point the run measured."""

    domain: str = ""
    accuracy: dict[str, float | None] | None = None
    solved: int = 0
    instances: int = 0
    succ_code: str | None = None
    goal_code: str | None = None
    scope: Scope = Scope.SEARCH_COMPONENTS
