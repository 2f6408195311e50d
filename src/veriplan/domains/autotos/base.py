"""What an AutoToS domain provides."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # types only: the sandbox child imports this module
    from veriplan.core.jsonvalue import JSONValue

# A state in a domain's own form: JSON-like (lists, strings, numbers) as it travels,
# or what ``decode`` makes of it (PrOntoQA: a set of facts). Any, not object: each
# domain's functions take their own state type, which the shared fields cannot name.
State = Any

_T = TypeVar("_T")


def data_folder(root: Path, name: str, marker: str, label: str) -> Path:
    """``root/autotos/name``, which must hold ``marker``."""
    from veriplan.errors import DataError

    d = root / "autotos" / name
    if not (d / marker).is_file():
        raise DataError(f"{label} data not found at {d}: is --data-dir the folder holding "
                        "autotos/?")
    return d


def read_records(path: Path, *, lines: bool) -> list:
    """JSON lines (``lines=True``) or one JSON array: the data has both under
    .jsonl names."""
    import json

    text = path.read_text()
    if lines:
        return [json.loads(x) for x in text.splitlines() if x.strip()]
    return json.loads(text)


def identity(s: _T) -> _T:
    """The default ``decode``/``encode``: states are JSON as they are."""
    return s


@dataclass
class Instance:
    id: str
    init: State
    meta: dict[str, JSONValue] = field(default_factory=dict)  # e.g. the optimal plan length


@dataclass
class DomainData:
    """Unit tests and instances read from the data directory."""

    evaluation: list[Instance]  # solved and validated at the end
    examples: list[Instance]  # searched in the soundness step (Step 3)
    goals: list[Instance]  # goal unit tests: known goal states (meta: the goal, if any)
    non_goals: list[Instance]  # ... and known non-goal states
    # known parent -> (some) successors[, meta for the successor function's arguments]
    successors: list[tuple]


@dataclass(frozen=True)
class Unsound:
    """A transition that fails the partial soundness check (``partial``), or a
    successor that is not a state the check can read."""

    successor: State
    message: str
    partial: bool


@dataclass(frozen=True)
class SearchDomain:
    name: str
    algorithm: str  # "bfs" or "dfs"
    load: Callable[[Path], DomainData]  # data directory (holding autotos/) -> data
    reference: ModuleType  # defines succ(state) and goal(state): hand-written, trusted
    # Used inside the sandbox child (trusted domain code):
    key: Callable[[State], Hashable]  # identity of a state for duplicate detection
    partial_check: Callable[[State, State], str | None]  # a transition's obvious error
    true_goal: Callable[[Instance, State], bool]  # does a state the search stopped at
    #                                              really solve the instance?
    same: Callable[[State], Hashable]  # canonical form for comparing successors
    # Used in the parent, independent of generated code:
    # (instance, path, strict) -> None for a valid solution: the paper's check, and
    # with strict=True also every step where the paper checks only the result
    validate: Callable[..., str | None]
    optimal: bool = False  # BFS solutions must match meta["optimal"]
    # Extra arguments after the state, e.g. the goal description (none for 24 Game)
    succ_args: Callable[[Instance], tuple] = lambda inst: ()
    goal_args: Callable[[Instance], tuple] = lambda inst: ()
    # Optional: the partial check over all successors of a state at once,
    # returning (the offending successor, message) or None; faster than a call per
    # successor where the check is a one-liner.
    check_all: Callable[[State, list], tuple[State, str] | None] | None = None
    # States travel as JSON; a domain whose functions take another form (PrOntoQA:
    # sets of facts) converts on the way in (decode) and out (encode).
    decode: Callable[[JSONValue], State] = identity
    encode: Callable[[State], JSONValue] = identity
    # A second search when the first finds no goal (PrOntoQA: the negated target).
    alternative: Callable[[Instance], Instance | None] = lambda inst: None
    # The names of the extra arguments (after the state) of succ and goal, as the
    # prompts name them: feedback shows every argument of the failing call.
    succ_params: tuple[str, ...] = ()
    goal_params: tuple[str, ...] = ()
    # What the model is asked to do after the domain's partial soundness check
    # failed (the paper's appendix gives one per domain).
    partial_advice: str = ""
    # How a state is written in feedback (PrOntoQA writes its sets as sets).
    show: Callable[[State], str] = repr

    def first_unsound(self, parent: State, children: list) -> Unsound | None:
        """The first successor that fails the partial soundness check, or that
        the check cannot even read (not a state of this domain)."""
        if self.check_all is not None:
            try:
                bad = self.check_all(parent, children)
            except Exception:  # noqa: BLE001 - some successor is not a state: find it below
                pass
            else:
                return None if bad is None else Unsound(bad[0], bad[1], partial=True)
        for child in children:
            try:
                msg = self.partial_check(parent, child)
            except Exception:  # noqa: BLE001 - the check cannot read it
                return Unsound(child, "the successor function returned a value that is not "
                               f"a state of this domain: {child!r:.300}", partial=False)
            if msg:
                return Unsound(child, msg, partial=True)
        return None

    def prompt(self, which: str) -> str:
        """Step 1's request for ``succ`` or ``goal``: the domain in words, the
        function wanted, an example input (``prompts/<name>_<which>.txt``)."""
        from importlib import resources  # here: the sandbox child never needs it

        folder = resources.files("veriplan.domains.autotos").joinpath("prompts")
        return folder.joinpath(f"{self.name}_{which}.txt").read_text().strip()

    def reference_code(self, which: str) -> str:
        """The source of the reference ``succ`` or ``goal`` (run like model code)."""
        import inspect

        return inspect.getsource(getattr(self.reference, which))
