"""What the harness runs methods on, below both: the kinds of problem a method
takes, the :class:`Instance` protocol every dataset's instances satisfy, and
:class:`Dataset`. Datasets live with their domains (``domains/``, ``envs/``)
and the harness (``bench/``) reads them; neither imports the other through
this module. Nothing here imports another veriplan subpackage."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable


class ProblemKind(StrEnum):
    """What a method plans for (a method module's ``PROBLEM``)."""

    PDDL = "pddl"  # a PDDL task (PlanningProblem, or a bare Task)
    AUTOTOS = "autotos"  # a search domain whose components the model writes
    HIDDEN = "hidden"  # a task with hidden preconditions (HiddenTask)
    ENV = "env"  # an interactive environment episode (EnvTask)


@runtime_checkable
class Instance(Protocol):
    """One unit of a dataset: ``id`` unique in its dataset, and the one place a
    method's input is built from it."""

    @property
    def id(self) -> str: ...

    @property
    def dataset(self) -> str: ...

    def problem(self, kind: ProblemKind | str) -> object:
        """What a method of problem kind ``kind`` plans for; a
        :class:`~veriplan.errors.DataError` when the instance holds another kind."""
        ...


@dataclass(frozen=True)
class Dataset:
    name: str
    instances: tuple[Instance, ...]
    version: str  # sha256 (first hex digits) over the files' names and contents

    def take(self, limit: int | None) -> tuple[Instance, ...]:
        return self.instances if limit is None else self.instances[:limit]


def wrong_kind(dataset: str, holds: ProblemKind, asked: ProblemKind | str) -> str:
    """The message for a method of kind ``asked`` on a dataset of kind ``holds``."""
    return (f"dataset {dataset} holds {holds.value!r} problems; a method that takes "
            f"{str(asked)!r} problems cannot run on it")


__all__ = ["Dataset", "Instance", "ProblemKind", "wrong_kind"]
