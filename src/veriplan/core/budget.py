"""One budget for grounding, search and simulation: a deadline, caps on the
ground actions and the states a piece of work may hold, and a flag that
cancels it. The work reads the budget through a :class:`Meter` at a cheap
interval (a clock read every few hundred steps, never per fact) and stops at
once when it is spent: grounding raises :class:`BudgetExceeded`, a search
returns its ``budget`` status.

The same budget is passed down from every face: the command line's
``--time-limit``, the Python API's ``time_limit=`` / ``budget=``, and each MCP
call's time limit (cancelled when the client gives up), so one call that is
over its time really stops and its memory is given back."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from veriplan.errors import VeriplanError

#: The most ground actions one grounding may hold (about 450 bytes each: some 0.9 GB).
MAX_GROUND_ACTIONS = 2_000_000
#: The most states one search may hold (each with its parent link).
MAX_STATES = 5_000_000


class Cancel(Protocol):
    """What cancels a piece of work from outside (a :class:`threading.Event`)."""

    def is_set(self) -> bool: ...


class BudgetLimit(StrEnum):
    """Which part of a budget a piece of work ran out of."""

    TIME = "time"
    CANCELLED = "cancelled"
    GROUND_ACTIONS = "ground-actions"
    STATES = "states"
    EXPANSIONS = "expansions"


class BudgetExceeded(VeriplanError):
    """Grounding, a search or a simulation stopped because it is over its budget
    (``limit`` says which part: time, ground actions, states, cancelled); the
    message names the work, the limit and the fix."""

    def __init__(self, message: str, limit: BudgetLimit) -> None:
        self.limit = limit
        super().__init__(message)


class InvalidBudgetError(VeriplanError, ValueError):
    """A budget limit that is not a number of its kind (NaN, negative, a
    fraction of a ground action): names the limit and what it takes."""


@dataclass(frozen=True)
class Budget:
    """Limits on one piece of work; ``None`` means unlimited.

    ``max_seconds`` counts from when a search or grounding starts; ``deadline``
    (a :func:`time.monotonic` time) is shared by every stage of one call, as
    :meth:`within` makes it. ``cancel`` stops the work when it is set."""

    max_expansions: int | None = None
    max_seconds: float | None = None
    max_ground_actions: int | None = MAX_GROUND_ACTIONS
    max_states: int | None = MAX_STATES
    deadline: float | None = None
    cancel: Cancel | None = None

    def __post_init__(self) -> None:
        seconds = self.max_seconds
        if seconds is not None and (not isinstance(seconds, int | float)
                                    or isinstance(seconds, bool) or math.isnan(seconds)
                                    or seconds < 0):
            raise InvalidBudgetError(f"a time limit must be a number of seconds, 0 or more, "
                                     f"not {seconds!r}")
        for name in ("max_expansions", "max_ground_actions", "max_states"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or value < 0):
                raise InvalidBudgetError(f"{name} must be a whole number, 0 or more (or None "
                                         f"for no limit), not {value!r}")

    @classmethod
    def within(cls, seconds: float, *, cancel: Cancel | None = None,
               max_ground_actions: int | None = MAX_GROUND_ACTIONS,
               max_states: int | None = MAX_STATES) -> Budget:
        """A budget of ``seconds`` from now, for every stage of the work."""
        return cls(max_seconds=seconds, deadline=time.monotonic() + seconds, cancel=cancel,
                   max_ground_actions=max_ground_actions, max_states=max_states)

    def left(self) -> float | None:
        """Seconds to the deadline (0 when past it), or ``None`` without one."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def clock(self) -> Meter:
        """A meter of this budget, started now."""
        return Meter(self)

    def describe(self, limit: BudgetLimit) -> str:
        """The limit in words, for a message."""
        if limit is BudgetLimit.TIME:
            return (f"its time limit of {self.max_seconds:g} s" if self.max_seconds is not None
                    else "its deadline")
        if limit is BudgetLimit.CANCELLED:
            return "a cancel (the caller gave up)"
        if limit is BudgetLimit.GROUND_ACTIONS:
            return f"its limit of {self.max_ground_actions:,} ground actions"
        if limit is BudgetLimit.STATES:
            return f"its limit of {self.max_states:,} states"
        return f"its limit of {self.max_expansions:,} expansions"


class Meter:
    """A started budget: what is left of its time, read cheaply."""

    __slots__ = ("budget", "cancel", "cap", "end", "start")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.start = time.monotonic()
        end = budget.deadline
        if budget.max_seconds is not None:
            mine = self.start + budget.max_seconds
            end = mine if end is None else min(end, mine)
        self.end = float("inf") if end is None else end
        self.cancel = budget.cancel
        #: the expansions a search may make (infinite without a limit)
        self.cap: float = (float("inf") if budget.max_expansions is None
                           else budget.max_expansions)

    def over_time(self) -> BudgetLimit | None:
        """``TIME`` past the deadline, ``CANCELLED`` once cancelled, else ``None``."""
        if self.cancel is not None and self.cancel.is_set():
            return BudgetLimit.CANCELLED
        if time.monotonic() >= self.end:
            return BudgetLimit.TIME
        return None

    def over(self, expanded: int, states: int) -> BudgetLimit | None:
        """The first limit a search with these counts is over, if any."""
        b = self.budget
        if b.max_expansions is not None and expanded >= b.max_expansions:
            return BudgetLimit.EXPANSIONS
        if b.max_states is not None and states > b.max_states:
            return BudgetLimit.STATES
        return self.over_time()

    def elapsed(self) -> float:
        return time.monotonic() - self.start


__all__ = ["MAX_GROUND_ACTIONS", "MAX_STATES", "Budget", "BudgetExceeded", "BudgetLimit",
           "Cancel", "InvalidBudgetError", "Meter"]
