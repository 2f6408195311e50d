"""The one transition-system protocol every search sees."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Protocol, TypeVar, runtime_checkable

S = TypeVar("S", bound=Hashable)
A = TypeVar("A")


@runtime_checkable
class TransitionSystem(Protocol[S, A]):
    """Anything a search can explore: grounded PDDL tasks, LLM-written
    successor functions (AutoToS) and test doubles alike."""

    def initial_state(self) -> S: ...

    def successors(self, state: S) -> Iterable[tuple[A, S]]: ...

    def is_goal(self, state: S) -> bool: ...

