"""The sandbox side of the Thoughts-of-Search baseline on hidden-fact PDDL
(:mod:`veriplan.methods.baselines.hidden_tos`). ``job`` is the sandbox
target: it defines the model's ``initial_state``, ``successor_states`` and
``is_goal``, runs a bounded breadth-first search over them and reports what
it found as JSON lines. It judges nothing: the plan it reports is judged by
the task's decider in veriplan's process, so a line the model's code forges
can only make its own plan wrong, never verified. It runs in veriplan's
sandbox like AutoToS's harness (:mod:`veriplan.domains.autotos.harness`),
with the same heartbeat: every call of the model's code writes a fresh code
first, so the parent times each call from outside and kills the sandbox
when one overruns (C loops included).

Lines (each a JSON array):

* ``["S", atoms]``: the start state ``initial_state()`` gave (sorted).
* ``["R", actions, expanded, generated]``: a goal state was reached; the
  actions on the path from the start, in order.
* ``["N", reason, expanded, generated]``: no goal state was reached:
  ``exhausted`` (every state reachable within the depth bound searched, none
  cut off by it), ``depth`` (some state lay at the depth bound), ``expansions``
  (the expansion budget ran out), ``time`` (the search limit ran out).
* ``["F", category, function, message]``: the code failed: ``parse_error``
  (it does not compile), ``missing_function``, ``exception`` (defining the
  functions, or a call, raised), ``bad_value`` (a function answered outside
  the documented form).

States travel as frozensets of strings: whatever iterable of strings a
function gives is turned into one before the search keeps it, so the
model's functions always receive the documented form and cannot change a
state the search holds.
"""

from __future__ import annotations

import builtins
import gc
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeVar

from veriplan.domains.autotos.harness import GOAL, SUCC

if TYPE_CHECKING:
    from veriplan.sandbox.child import Channel

T = TypeVar("T")

FUNCTIONS = ("initial_state", "successor_states", "is_goal")
# the heartbeat's index (below the role bit) says which call was running
DEFINE, INITIAL, SUCCESSORS = 1, 2, 3
CALLS = {DEFINE: "defining the functions", INITIAL: "initial_state",
         SUCCESSORS: "successor_states"}


class CodeFailure(Exception):
    def __init__(self, category: str, function: str, message: str) -> None:
        super().__init__(message)
        self.category, self.function, self.message = category, function, message


def _exc(e: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(e), e)).strip()[-600:]


def _state(value: object, function: str) -> frozenset[str]:
    """``value`` as a state (an iterable of strings, not itself a string)."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise CodeFailure("bad_value", function, f"{function} gave {_show(value)}, which is "
                          "not a state (a frozenset of atom strings)")
    items = list(value)
    bad = next((x for x in items if not isinstance(x, str)), None)
    if bad is not None:
        raise CodeFailure("bad_value", function, f"{function} gave a state holding "
                          f"{_show(bad)}, which is not an atom string")
    # an exact str (a subclass's own hash or equality would run model code outside a call)
    return frozenset(x if type(x) is str else str.__str__(x) for x in items)


def _show(x: object) -> str:
    try:
        return repr(x)[:200]
    except Exception:  # noqa: BLE001 - a value whose repr fails
        return f"a {type(x).__name__}"


def _successors(out: object) -> list[tuple[str, frozenset[str]]]:
    if isinstance(out, str | bytes) or not isinstance(out, Iterable):
        raise CodeFailure("bad_value", "successor_states", f"successor_states gave "
                          f"{_show(out)}, not an iterable of (action, next_state) pairs")
    pairs = []
    for item in out:
        if not isinstance(item, tuple | list) or len(item) != 2 or not isinstance(item[0], str):
            raise CodeFailure("bad_value", "successor_states", f"successor_states gave "
                              f"{_show(item)}, not an (action string, next_state) pair")
        pairs.append((item[0], _state(item[1], "successor_states")))
    return pairs


def load(code: str, ch: Channel) -> tuple[Callable[..., object], ...]:
    """The three functions ``code`` defines; defining them is a timed call."""
    namespace: dict[str, object] = {"__builtins__": builtins, "__name__": "generated"}
    try:
        compiled = compile(code, "<generated tos>", "exec")
    except (SyntaxError, ValueError) as e:  # ValueError: a null byte in the source
        raise CodeFailure("parse_error", "", f"the code does not parse: {e}") from None
    ch.begin(ch.code(SUCC) | DEFINE)
    try:
        exec(compiled, namespace)  # noqa: S102 - model code, inside the sandbox only
    except BaseException as e:  # noqa: BLE001 - the model's code failed while defining
        raise CodeFailure("exception", CALLS[DEFINE], f"defining the functions raised "
                          f"{_exc(e)}") from None
    finally:
        ch.beat[0] = 0
    missing = [n for n in FUNCTIONS if not callable(namespace.get(n))]
    if missing:
        raise CodeFailure("missing_function", missing[0], "the code defines no function "
                          + " and no ".join(missing))
    return tuple(namespace[n] for n in FUNCTIONS)


def job(payload: dict) -> None:
    """The sandbox target: ``code``, ``max_depth``, ``max_expansions``, ``search_limit``."""
    from veriplan.sandbox.child import CHANNEL as ch

    gc.disable()  # as AutoToS's harness: a collection must not be blamed on a call
    try:
        search(load(payload["code"], ch), ch, int(payload["max_depth"]),
               int(payload["max_expansions"]), float(payload["search_limit"]))
    except CodeFailure as f:
        ch.send(["F", f.category, f.function, f.message[:2000]])


def search(functions: tuple[Callable[..., object], ...], ch: Channel, max_depth: int,
           max_expansions: int, search_limit: float) -> None:
    """Breadth-first search from ``initial_state()`` with the goal test on
    generation (a shortest path within the bounds); each state once."""
    initial_state, successor_states, is_goal = functions
    deadline = time.perf_counter() + search_limit

    def call(code: int, fn: Callable[[], T], name: str) -> T:
        ch.begin(code)
        try:
            return fn()
        except CodeFailure:
            raise
        except BaseException as e:  # noqa: BLE001 - the model's error
            raise CodeFailure("exception", name, f"{name} raised {_exc(e)}") from None
        finally:
            ch.beat[0] = 0

    def goal(s: frozenset[str]) -> bool:
        return call(ch.code(GOAL), lambda: bool(is_goal(s)), "is_goal")

    start = call(ch.code(SUCC) | INITIAL, lambda: _state(initial_state(), "initial_state"),
                 "initial_state")
    ch.send(["S", sorted(start)])
    if goal(start):
        ch.send(["R", [], 0, 0])
        return
    parent: dict[frozenset[str], tuple[frozenset[str], str] | None] = {start: None}
    frontier: deque[tuple[frozenset[str], int]] = deque([(start, 0)])
    expanded = generated = 0
    cut = False
    while frontier:
        if time.perf_counter() > deadline:
            ch.send(["N", "time", expanded, generated])
            return
        if expanded >= max_expansions:
            ch.send(["N", "expansions", expanded, generated])
            return
        s, depth = frontier.popleft()
        if depth >= max_depth:
            cut = True
            continue
        expanded += 1
        pairs = call(ch.code(SUCC) | SUCCESSORS,
                     lambda s=s: _successors(successor_states(s)), "successor_states")
        for action, t in pairs:
            if t in parent:
                continue
            parent[t] = (s, action)
            generated += 1
            if goal(t):
                ch.send(["R", _path(parent, t), expanded, generated])
                return
            frontier.append((t, depth + 1))
    ch.send(["N", "depth" if cut else "exhausted", expanded, generated])


def _path(parent: dict, t: frozenset[str]) -> list[str]:
    actions = []
    while parent[t] is not None:
        t, action = parent[t]
        actions.append(action)
    return actions[::-1]
