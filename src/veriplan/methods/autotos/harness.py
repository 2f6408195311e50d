"""The checks of AutoToS Steps 2-4 and the final evaluation, run inside the
sandbox child (``job`` is the sandbox target). Model-written code is compiled
and called only here. Every call of a generated function is timed (1 s by
default). In Step 3's search the successor function's input is also compared
before and after, each generated transition meets the domain's partial
soundness check (or, for the paper's "w/o val", a check that always passes),
and a state the search stops at must really be a goal. The final evaluation
searches with the per-transition checks off, as the authors' does. The first
failure comes back with its category and evidence: the state, and every other
argument of the failing call by name.
"""

from __future__ import annotations

import builtins
import gc
import json
import pickle
import signal
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any, NoReturn

from veriplan.domains.autotos import get_domain
from veriplan.domains.autotos.base import Instance, SearchDomain

# The paper's ten error categories (section 6.1)
CATEGORIES = ("succ_soundness", "input_changed", "succ_completeness", "goal_soundness",
              "succ_exception", "goal_exception", "search_timeout", "succ_too_slow",
              "goal_too_slow", "parse_error")


class CallTimeout(BaseException):
    """Raised into a generated function that ran past its time limit."""


class Failure(Exception):
    def __init__(self, category: str, message: str, **evidence: Any) -> None:
        super().__init__(message)
        self.category, self.message, self.evidence = category, message, evidence


class Watchdog:
    """Times calls of generated functions without a system call per call: the
    caller marks a call's start; a thread checks every 1/20 of the limit and
    interrupts the main thread (SIGALRM) when a call overruns. The handler
    raises only while a call is running, so a late signal is harmless."""

    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.started = 0.0  # 0: no call running
        self.main = threading.main_thread().ident
        signal.signal(signal.SIGALRM, self._handler)
        threading.Thread(target=self._watch, daemon=True).start()

    def _handler(self, signum, frame) -> None:  # noqa: ARG002
        if self.started:
            self.started = 0.0
            raise CallTimeout

    def _watch(self) -> None:
        period = max(self.limit / 20, 0.005)
        clock = time.perf_counter
        while True:
            time.sleep(period)
            started = self.started
            if started and clock() - started > self.limit:
                signal.pthread_kill(self.main, signal.SIGALRM)


_WATCHDOGS: dict[float, Watchdog] = {}


def watchdog(limit: float) -> Watchdog:
    if limit not in _WATCHDOGS:
        _WATCHDOGS[limit] = Watchdog(limit)
    return _WATCHDOGS[limit]


def load_function(code: str, name: str, role: str) -> Callable:
    """The function ``name`` defined by ``code`` (else the last function it
    defines); problems are failures of the role's exception category."""
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": "generated"}
    try:
        compiled = compile(code, f"<generated {role}>", "exec")
    except SyntaxError as e:
        raise Failure("parse_error", f"the {role} code does not parse: {e}",
                      function=role) from None
    try:
        exec(compiled, namespace)
    except BaseException as e:  # noqa: BLE001 - the model's code failed while defining
        raise Failure(f"{role}_exception", f"defining the {role} function raised "
                      f"{_exc(e)}") from None
    if callable(namespace.get(name)):
        return namespace[name]
    funcs = [v for k, v in namespace.items() if callable(v) and getattr(v, "__module__", "")
             == "generated" and not k.startswith("__")]
    if not funcs:
        raise Failure("parse_error", f"the {role} code defines no function", function=role)
    return funcs[-1]


def _exc(e: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(e), e)).strip()[-600:]


def jsonable(x: Any) -> Any:
    """A JSON form of a state (tuples become lists), or a readable failure."""
    try:
        return json.loads(json.dumps(x))
    except (TypeError, ValueError):
        raise Failure("succ_soundness", f"the successor function returned {x!r}, which is "
                      "not a state (lists, dicts, strings and numbers only)") from None


class Checked:
    """The generated functions with the harness's checks around every call:
    the time limit always; the input-mutation check (``mutation``) and the
    partial soundness check (``partial``) when asked for."""

    def __init__(self, domain: SearchDomain, succ: Callable | None, goal: Callable | None,
                 instance: Instance, call_limit: float, *, mutation: bool,
                 partial: bool) -> None:
        self.d, self.succ, self.goal, self.inst = domain, succ, goal, instance
        self.limit, self.mutation, self.partial = call_limit, mutation, partial
        self.succ_args = domain.succ_args(instance) if succ is not None else ()
        self.goal_args = domain.goal_args(instance) if goal is not None else ()
        self.calls = 0
        self.dog = watchdog(call_limit)

    def args(self, role: str) -> dict:
        """The arguments after the state of a ``role`` call, by name."""
        if role == "succ":
            return dict(zip(self.d.succ_params, self.succ_args))
        return dict(zip(self.d.goal_params, self.goal_args))

    def _call(self, fn: Callable, args: tuple, role: str) -> Any:
        self.calls += 1
        dog = self.dog
        dog.started = time.perf_counter()
        try:
            return fn(*args)
        except Failure:
            raise
        except BaseException as e:  # noqa: BLE001 - a timeout, or anything the code raises
            self.failed_call(e, args[0], role)
        finally:
            dog.started = 0.0

    def failed_call(self, e: BaseException, state: Any, role: str) -> NoReturn:
        if isinstance(e, CallTimeout):
            raise Failure(f"{role}_too_slow", f"the {role} function took longer than "
                          f"{self.limit:g} s", state=jsonable_or_repr(state),
                          args=self.args(role)) from None
        raise Failure(f"{role}_exception", f"the {role} function raised {_exc(e)}",
                      state=jsonable_or_repr(state), args=self.args(role)) from None

    def successors(self, state: Any) -> list:
        before = pickle.dumps(state) if self.mutation else None
        out = self._call(self.succ, (state, *self.succ_args), "succ")
        if self.mutation and pickle.dumps(state) != before:
            raise Failure("input_changed", "the successor function changed its input state",
                          before=pickle.loads(before), after=jsonable_or_repr(state),
                          args=self.args("succ"))
        try:
            out = list(out)
        except TypeError:
            raise Failure("succ_soundness", "the successor function must return a list of "
                          f"states, not {type(out).__name__}", state=state,
                          args=self.args("succ")) from None
        if self.partial:
            bad = self.d.first_unsound(state, out)
            if bad is not None:
                raise Failure("succ_soundness", bad.message, state=state,
                              successor=jsonable_or_repr(bad.successor),
                              args=self.args("succ"),
                              check="partial" if bad.partial else "state")
        return out

    def is_goal(self, state: Any) -> bool:
        return bool(self._call(self.goal, (state, *self.goal_args), "goal"))


def jsonable_or_repr(x: Any) -> Any:
    try:
        return json.loads(json.dumps(x, default=_sets))
    except (TypeError, ValueError):
        return repr(x)[:500]


def _sets(x: Any) -> Any:
    if isinstance(x, set | frozenset):
        return sorted(x, key=repr)
    raise TypeError(type(x).__name__)


def search(fns: Checked, deadline: float) -> list | None:
    """BFS (goal test on generation) or DFS; the state path, or None. The goal
    test's timed call is inlined: it runs once per generated state."""
    d = fns.d
    init = fns.inst.init
    if fns.is_goal(init):
        return [jsonable(d.encode(init))]
    key = d.key
    seen: dict = {key(init): None}  # state key -> (parent key, state)
    frontier: deque = deque([init])
    pop = frontier.popleft if d.algorithm == "bfs" else frontier.pop
    push = frontier.append
    goal, gargs, dog, clock = fns.goal, fns.goal_args, fns.dog, time.perf_counter
    calls = 0
    try:
        while frontier:
            if clock() > deadline:
                raise Failure("search_timeout", "the search ran out of time")
            s = pop()
            ks = key(s)
            for child in fns.successors(s):
                try:
                    kc = key(child)
                except Exception:  # noqa: BLE001 - not a state of this domain
                    raise Failure("succ_soundness", "the successor function returned "
                                  f"{jsonable_or_repr(child)!r}, which is not a state",
                                  state=s, args=fns.args("succ")) from None
                if kc in seen:
                    continue
                seen[kc] = (ks, child)
                calls += 1
                dog.started = clock()
                try:
                    reached = goal(child, *gargs) if gargs else goal(child)
                except BaseException as e:  # noqa: BLE001 - timeout or the model's error
                    fns.failed_call(e, child, "goal")
                finally:
                    dog.started = 0.0
                if reached:
                    path = []
                    while seen[kc] is not None:
                        kc, state = seen[kc]
                        path.append(state)
                    path.append(init)
                    return [jsonable(d.encode(x)) for x in reversed(path)]
                push(child)
        return None
    finally:
        fns.calls += calls


def job(payload: dict) -> dict:
    """The sandbox target. ``mode``: goal_tests, soundness, completeness or
    evaluate. Returns {"failure": {category, message, evidence} | None, ...}."""
    domain = get_domain(payload["domain"])
    # The search tree holds millions of small acyclic objects; a garbage-collector
    # pass over them can take longer than the 1 s call limit and would be blamed on
    # the generated function. The address-space limit bounds memory instead.
    gc.disable()
    try:
        succ = load_function(payload["succ_code"], "succ", "succ") \
            if payload.get("succ_code") and payload["mode"] != "goal_tests" else None
        goal = load_function(payload["goal_code"], "goal", "goal")
        return _MODES[payload["mode"]](domain, succ, goal, payload)
    except Failure as f:
        return {"failure": {"category": f.category, "message": f.message,
                            "evidence": {k: jsonable_or_repr(v) for k, v in f.evidence.items()}}}


def _instances(payload: dict, key: str, domain: SearchDomain) -> list[Instance]:
    return [Instance(i["id"], domain.decode(i["init"]), i.get("meta", {}))
            for i in payload[key]]


def _goal_tests(domain, succ, goal, payload) -> dict:
    """Step 2: the goal unit tests, goal and non-goal states."""
    for inst in _instances(payload, "instances", domain):
        fns = Checked(domain, succ, goal, inst, payload["call_limit"], mutation=False,
                      partial=False)
        expected = inst.meta["expected"]
        if fns.is_goal(inst.init) != expected:
            word = "a goal state" if not expected else "not a goal state"
            raise Failure("goal_soundness", f"the goal test reported "
                          f"{jsonable_or_repr(inst.init)} as {word}", state=inst.init,
                          expected=expected, args=fns.args("goal"))
    return {"failure": None}


def _soundness(domain, succ, goal, payload) -> dict:
    """Step 3: search the example instances with every check on; the partial
    soundness check is the domain's, or one that always passes (``partial``
    false: the paper's "w/o val")."""
    solved = 0
    for inst in _instances(payload, "instances", domain):
        fns = Checked(domain, succ, goal, inst, payload["call_limit"], mutation=True,
                      partial=payload.get("partial", True))
        path = search(fns, time.perf_counter() + payload["search_limit"])
        if path is not None:
            if not domain.true_goal(inst, path[-1]):
                raise Failure("goal_soundness", f"the goal test accepted {path[-1]}, which is "
                              "not a goal state", state=path[-1], expected=False,
                              args=fns.args("goal"))
            solved += 1
    return {"failure": None, "solved": solved}


def _completeness(domain, succ, goal, payload) -> dict:
    """Step 4: the known successors of the unit-test states must all come out."""
    for item in payload["pairs"]:
        state = domain.decode(item["state"])
        inst = Instance("unit", state, item.get("meta", {}))
        fns = Checked(domain, succ, None, inst, payload["call_limit"], mutation=False,
                      partial=False)
        got = {domain.same(c) for c in fns.successors(state)}
        missing = [s for s in item["successors"] if domain.same(domain.decode(s)) not in got]
        if missing:
            raise Failure("succ_completeness", "the successor function missed successors",
                          state=item["state"], missing=missing, args=fns.args("succ"))
    return {"failure": None}


def _evaluate(domain, succ, goal, payload) -> dict:
    """Solve each instance; a failure (an exception, a timeout, or with
    ``checks`` a check) ends that instance only. The loop evaluates with the
    per-transition checks off; the reference run turns them on."""
    out = []
    checks = payload.get("checks", False)
    for inst in _instances(payload, "instances", domain):
        fns = Checked(domain, succ, goal, inst, payload["call_limit"], mutation=checks,
                      partial=checks)
        start = time.perf_counter()
        try:
            path = search(fns, start + payload["search_limit"])
            other = domain.alternative(inst) if path is None else None
            if other is not None:
                second = Checked(domain, succ, goal, other, payload["call_limit"],
                                 mutation=checks, partial=checks)
                path = search(second, start + payload["search_limit"])
                fns.calls += second.calls
            out.append({"id": inst.id, "path": path, "failure": None, "calls": fns.calls,
                        "seconds": time.perf_counter() - start})
        except Failure as f:
            out.append({"id": inst.id, "path": None, "calls": fns.calls,
                        "seconds": time.perf_counter() - start,
                        "failure": {"category": f.category, "message": f.message,
                                    "evidence": {k: jsonable_or_repr(v)
                                                 for k, v in f.evidence.items()}}})
    return {"failure": None, "results": out}


_MODES = {"goal_tests": _goal_tests, "soundness": _soundness, "completeness": _completeness,
          "evaluate": _evaluate}
