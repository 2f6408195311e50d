"""AutoToS's verdicts, computed in veriplan's own process from the plain JSON
the sandbox returns (:mod:`veriplan.domains.autotos.harness` runs the model's
functions and only reports their answers).

* Goal unit tests: the sandbox gets the states (never the expected answers)
  and returns the goal test's booleans; they are compared here.
* Completeness: the sandbox gets the states (never the known successors) and
  returns the successor function's states; missing ones are found here.
* Soundness and the evaluation with checks: the sandbox streams every
  expansion of its search; this module replays the same BFS/DFS from those
  answers (its own duplicate detection and frontier, its own copy of every
  state), runs the partial soundness check on every transition and the true
  goal check on the state the search stops at, decides the input-mutation
  check from the expanded state as written before and after the successor
  call, and builds the path from its own search tree.
* The evaluation without checks: the sandbox returns each path, which the
  caller validates independently of the model's code.

A call that overruns its limit is seen from outside, on this process's clock
(the sandbox's heartbeat only names the call; a heartbeat the code zeroes
does not stop the clock): the sandbox is killed (C loops included) and the
call is ``succ_too_slow`` / ``goal_too_slow``; an instance whose search runs
past its search limit (plus one call's) is ``search_timeout``, killed from
outside too; the evaluation restarts a sandbox for the instances left. The
sandbox may report its own failures (an exception, a value that is not a
state, its search time running out): a failure claimed only hurts the code
that claims it. Anything else that does not fit — a missing, malformed or
inconsistent answer, a process that ended between calls — is
``malformed_answer``. Nothing the sandbox says can make a check pass that the
model's functions, as they answered, do not pass.
"""

from __future__ import annotations

import gc
import signal
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NotRequired, TypedDict

from veriplan.domains.autotos.base import Instance, SearchDomain, State, identity
from veriplan.sandbox import Ended, Job, Limits, Overran, Stalled
from veriplan.sandbox.runner import IDLE_GRACE

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue

TARGET = "veriplan.domains.autotos.harness:job"
MALFORMED = "malformed_answer"
# Failures the sandbox may report about its own functions
CLAIMS = ("succ_exception", "goal_exception", "input_changed", "succ_soundness",
          "search_timeout", "parse_error")
_HIDDEN_META = ("expected", "optimal")  # answers the sandbox must not see
ONE_CALL = {"goal_tests": "goal", "completeness": "succ"}  # modes: each instance one call
SLACK = 5.0  # seconds past an instance's own limit before it is killed from outside


class FailureData(TypedDict):
    """A :class:`Failed` as a check's answer carries it."""

    category: str
    message: str
    evidence: dict[str, JSONValue]  # each value as JSON, else its repr


class SearchResult(TypedDict):
    """One instance's search (:func:`evaluate`)."""

    id: str
    path: list[JSONValue] | None  # the states as JSON, from the initial one; None: unsolved
    failure: FailureData | None
    calls: int
    seconds: float


class CheckResult(TypedDict):
    """A check's answer: its failure (None: passed), and by check ``solved``
    (soundness: the example instances solved) or ``results`` (evaluate: every
    instance's, in order)."""

    failure: FailureData | None
    solved: NotRequired[int]
    results: NotRequired[list[SearchResult]]


class Failed(Exception):
    """A verdict against the model's functions; ``dead``: the sandbox was
    killed or ended, so a new one is needed for anything after."""

    def __init__(self, category: str, message: str, role: str = "succ", *, dead: bool = False,
                 **evidence: object) -> None:  # states, arguments: shown as JSON or repr
        super().__init__(message)
        self.category, self.message, self.role, self.dead = category, message, role, dead
        self.evidence = evidence

    def data(self) -> FailureData:
        from veriplan.domains.autotos.harness import jsonable_or_repr

        evidence = {k: jsonable_or_repr(v) for k, v in self.evidence.items()}
        if self.category in (MALFORMED, "parse_error", "search_timeout"):
            evidence.setdefault("function", self.role)
        return {"category": self.category, "message": self.message, "evidence": evidence}


def _malformed(detail: str, role: str = "succ", dead: bool = False) -> Failed:
    return Failed(MALFORMED, "the sandbox's answer was missing or malformed (did the code "
                  f"change the harness or end its process?): {detail}", role, dead=dead)


class Session:
    """One sandbox job of the harness, read line by line."""

    def __init__(self, domain: SearchDomain, mode: str, succ: str | None, goal: str | None,
                 call_limit: float, search_limit: float, instances: list[dict[str, JSONValue]],
                 limits: Limits, **extra: JSONValue) -> None:  # more of the job's payload
        self.d, self.limit, self.mode = domain, call_limit, mode
        self.search_limit = search_limit
        payload = {"domain": domain.name, "mode": mode, "succ_code": succ, "goal_code": goal,
                   "search_limit": search_limit, "instances": [_public(i) for i in instances],
                   **extra}
        self.job = Job(TARGET, payload, limits, call_limit=call_limit)
        self.job.expect(2 * call_limit + IDLE_GRACE + SLACK)  # defining the two functions
        self.loaded = False

    def close(self) -> None:
        self.job.close()

    def line(self, where: Callable[[str, int], dict[str, object]]) -> list[JSONValue]:
        """The next line (a non-empty JSON array). ``where(role, index)`` gives
        the evidence for a call that overran or ended the process."""
        try:
            line = self.job.next()
        except Stalled as e:
            role = ONE_CALL.get(self.mode, e.role)  # what runs here is known in these modes
            if isinstance(e, Overran) and self.mode not in ONE_CALL:
                raise Failed("search_timeout", f"the search ran past its {self.search_limit:g} "
                             f"s (stopped from outside, in the {role} function)", role,
                             dead=True) from None
            what = "took longer than" if self.loaded else "took longer to define than"
            raise Failed(f"{role}_too_slow", f"the {role} function {what} "
                         f"{self.limit:g} s (stopped from outside)", role, dead=True,
                         **_safe(where, role, e.index)) from None
        except Ended as e:
            raise self._ended(e, where) from None
        if not isinstance(line, list) or not line or not isinstance(line[0], str):
            raise _malformed(f"a line that is not a tagged list: {str(line)[:200]}")
        return line

    def _ended(self, e: Ended, where: Callable[[str, int], dict[str, object]]) -> Failed:
        rc = e.returncode
        if e.kind == "timeout" or (e.kind == "exit" and rc in (-signal.SIGXCPU,
                                                               -signal.SIGKILL)):
            return Failed("search_timeout", f"the sandbox's time ran out: {e.detail}",
                          dead=True)
        if e.kind == "too_large":
            role = ONE_CALL.get(self.mode, "succ")
            return Failed(f"{role}_exception", f"the {role} function's answers outgrew what "
                          f"veriplan accepts: {e.detail}", role, dead=True)
        if e.kind == "exit" and e.code:
            return Failed(f"{e.role}_exception", f"the {e.role} function ended the sandbox's "
                          f"process ({e.detail})", e.role, dead=True,
                          **_safe(where, e.role, e.code & ((1 << 23) - 1)))
        return _malformed(e.detail, dead=True)

    def claim(self, failure: JSONValue, **evidence: object) -> Failed:
        """A failure the sandbox reports about its own functions."""
        if not isinstance(failure, dict) or failure.get("category") not in CLAIMS:
            return _malformed(f"an unknown failure {str(failure)[:300]}")
        role = "goal" if str(failure["category"]).startswith("goal") else "succ"
        if failure.get("role") in ("succ", "goal"):
            role = failure["role"]
        told = failure.get("evidence") if isinstance(failure.get("evidence"), dict) else {}
        return Failed(failure["category"], str(failure.get("message", ""))[:3000], role,
                      **(told | evidence))

    def instance(self, k: int, alternative: bool = False) -> None:
        """Read up to instance ``k``'s start (skipping what is left of an
        instance judged early). A failure before the first instance is the
        code failing to load."""
        tag = "A" if alternative else "I"
        while True:
            line = self.line(lambda role, i: {})
            if line[0] == tag and line[1:] == [k]:
                self.loaded = True
                # from its first line, on this process's clock: the instance's search (or
                # its one call), one call past it and the harness's own work
                own = self.limit if self.mode in ONE_CALL else self.search_limit + self.limit
                self.job.expect(own + self.limit + IDLE_GRACE + SLACK)
                return
            if line[0] == "F" and not self.loaded and len(line) == 3:
                raise self.claim(line[2])
            if line[0] == "D":
                raise _malformed("the sandbox ended before instance "
                                 f"{k}: {str(line[1:])[:300]}", dead=True)


def _safe(where: Callable[[str, int], dict[str, object]], role: str, index: int
          ) -> dict[str, object]:
    try:
        return where(role, index)
    except Exception:  # noqa: BLE001 - evidence is a courtesy
        return {}


def _public(inst: dict[str, JSONValue]) -> dict[str, JSONValue]:
    meta = {k: v for k, v in (inst.get("meta") or {}).items() if k not in _HIDDEN_META}
    return {"id": inst.get("id", ""), "init": inst["init"], "meta": meta}


@contextmanager
def _no_gc() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _limits(search_limit: float, n: int) -> Limits:
    wall = search_limit * max(1, n) + 60
    return Limits(wall_seconds=wall, cpu_seconds=int(wall) + 5)


def _instance(d: SearchDomain, item: dict[str, JSONValue]) -> Instance:
    return Instance(item.get("id", ""), d.decode(item["init"]), item.get("meta", {}))


# --- the checks ------------------------------------------------------------------------

def goal_tests(d: SearchDomain, goal: str, units: list[dict[str, JSONValue]],
               call_limit: float) -> CheckResult:
    """Step 2: the goal test on known goal and non-goal states."""
    s = Session(d, "goal_tests", None, goal, call_limit, 1.0, units, _limits(call_limit, 1))
    try:
        for k, unit in enumerate(units):
            inst = _instance(d, unit)
            args = dict(zip(d.goal_params, d.goal_args(inst)))
            s.instance(k)
            line = s.line(lambda role, i, x=inst.init, a=args: {"state": x, "args": a})
            if line[0] == "F" and len(line) == 3:
                raise s.claim(line[2], state=inst.init, args=args)
            if line[0] != "V" or len(line) != 2 or not isinstance(line[1], bool):
                raise _malformed(f"expected the goal test's answer, got {str(line)[:200]}",
                                 "goal")
            expected = bool(unit["meta"]["expected"])
            if line[1] != expected:
                word = "a goal state" if not expected else "not a goal state"
                from veriplan.domains.autotos.harness import jsonable_or_repr

                raise Failed("goal_soundness", f"the goal test reported "
                             f"{jsonable_or_repr(inst.init)} as {word}", "goal",
                             state=inst.init, expected=expected, args=args)
        return {"failure": None}
    except Failed as f:
        return {"failure": f.data()}
    finally:
        s.close()


def completeness(d: SearchDomain, succ: str, pairs: list[dict[str, JSONValue]],
                 call_limit: float) -> CheckResult:
    """Step 4: the known successors of the unit-test states must all come out."""
    items = [{"id": str(i), "init": p["state"], "meta": p.get("meta", {})}
             for i, p in enumerate(pairs)]
    s = Session(d, "completeness", succ, None, call_limit, 1.0, items,
                _limits(call_limit, len(items)))
    try:
        for k, item in enumerate(pairs):
            inst = _instance(d, items[k])
            args = dict(zip(d.succ_params, d.succ_args(inst)))
            s.instance(k)
            line = s.line(lambda role, i, x=item["state"], a=args: {"state": x, "args": a})
            if line[0] == "F" and len(line) == 3:
                raise s.claim(line[2], state=item["state"], args=args)
            if line[0] != "V" or len(line) != 2 or not isinstance(line[1], list):
                raise _malformed(f"expected the successor function's states, got "
                                 f"{str(line)[:200]}")
            try:
                got = {d.same(d.decode(c)) for c in line[1]}
            except Exception:  # noqa: BLE001 - a value that is not a state
                raise Failed("succ_soundness", "the successor function returned a value "
                             "that is not a state of this domain", state=item["state"],
                             args=args) from None
            missing = [x for x in item["successors"] if d.same(d.decode(x)) not in got]
            if missing:
                raise Failed("succ_completeness", "the successor function missed successors",
                             state=item["state"], missing=missing, args=args)
        return {"failure": None}
    except Failed as f:
        return {"failure": f.data()}
    finally:
        s.close()


def soundness(d: SearchDomain, succ: str, goal: str, instances: list[dict[str, JSONValue]],
              call_limit: float, search_limit: float, partial: bool) -> CheckResult:
    """Step 3: search the example instances with every check on; the partial
    soundness check is the domain's, or none (``partial`` false: the paper's
    "w/o val")."""
    s = Session(d, "search", succ, goal, call_limit, search_limit, instances,
                _limits(search_limit, len(instances)), trace=True, mutation=True)
    solved = 0
    try:
        with _no_gc():
            for k, item in enumerate(instances):
                inst = _instance(d, item)
                s.instance(k)
                path, _ = replay(s, d, inst, partial)
                if path is not None:
                    if not d.true_goal(inst, path[-1]):
                        raise Failed("goal_soundness", f"the goal test accepted {path[-1]}, "
                                     "which is not a goal state", "goal", state=path[-1],
                                     expected=False,
                                     args=dict(zip(d.goal_params, d.goal_args(inst))))
                    solved += 1
        return {"failure": None, "solved": solved}
    except Failed as f:
        return {"failure": f.data()}
    finally:
        s.close()


def evaluate(d: SearchDomain, succ: str, goal: str, instances: list[dict[str, JSONValue]],
             call_limit: float, search_limit: float, checks: bool,
             solved: Callable[[int, SearchResult], None] | None = None) -> CheckResult:
    """Solve each instance; a failure ends that instance only (a sandbox
    killed for an overrunning call is restarted for the instances left; after
    :data:`RESTARTS` such instances in a row the rest fail the same way without
    a search).
    With ``checks`` the search is replayed here with every check on; without,
    the sandbox's paths come back (the caller validates them). ``solved(k,
    result)`` is called as each instance's search ends without a failure
    (the caller may validate its path while the sandbox searches the next)."""
    results: list[SearchResult | None] = [None] * len(instances)  # all set by the end
    todo = list(range(len(instances)))
    killed_in_a_row = 0
    with _no_gc():
        while todo:
            batch = [instances[k] for k in todo]
            s = Session(d, "search", succ, goal, call_limit, search_limit, batch,
                        _limits(search_limit, len(batch)), trace=checks, mutation=checks)
            done = 0
            try:
                for local, k in enumerate(todo):
                    start = time.perf_counter()
                    inst = _instance(d, instances[k])
                    try:
                        s.instance(local)
                        path, calls = (replay(s, d, inst, True) if checks
                                       else _result(s, d, inst))
                        if path is None:
                            other = d.alternative(inst)
                            if other is not None:
                                s.instance(local, alternative=True)
                                path, more = (replay(s, d, other, True) if checks
                                              else _result(s, d, other))
                                calls += more
                        results[k] = {"id": inst.id, "path": path, "failure": None,
                                      "calls": calls, "seconds": time.perf_counter() - start}
                        killed_in_a_row = 0
                        if solved is not None:
                            solved(k, results[k])
                    except Failed as f:
                        if not s.loaded:  # the code does not even load
                            if not any(results):
                                return {"failure": f.data()}
                            _give_up(results, todo[local:], instances, f, "its code did "
                                     "not load again in a fresh sandbox")
                            return {"failure": None, "results": results}
                        results[k] = {"id": inst.id, "path": None, "calls": 0,
                                      "seconds": time.perf_counter() - start,
                                      "failure": f.data()}
                        done = local + 1
                        if f.dead:
                            killed_in_a_row += 1
                            if killed_in_a_row >= RESTARTS:
                                _give_up(results, todo[done:], instances, f, f"the sandbox "
                                         f"was killed on {RESTARTS} instances in a row")
                                return {"failure": None, "results": results}
                            break
                        killed_in_a_row = 0
                    done = local + 1
            finally:
                s.close()
            todo = todo[done:]
    return {"failure": None, "results": results}


RESTARTS = 5  # instances in a row whose sandbox had to be killed before the rest are given up


def _give_up(results: list[SearchResult | None], left: list[int],
             instances: list[dict[str, JSONValue]], f: Failed,
             why: str) -> None:
    """The instances ``left`` fail like the last one, not searched (``why``)."""
    data = f.data()
    data["message"] = f"not searched ({why}); the last: {data['message']}"
    data["evidence"] = {}
    for k in left:
        results[k] = {"id": instances[k].get("id", ""), "path": None, "calls": 0,
                      "seconds": 0.0, "failure": data}


def _result(s: Session, d: SearchDomain, inst: Instance) -> tuple[list[JSONValue] | None, int]:
    """A search's result without its trace (the path is validated later)."""
    args = {"state": inst.init}
    line = s.line(lambda role, i: args)
    if line[0] == "F" and len(line) == 3:
        raise s.claim(line[2])
    if line[0] != "R" or len(line) != 3 or not (line[1] is None or isinstance(line[1], list)):
        raise _malformed(f"expected a search result, got {str(line)[:200]}")
    calls = line[2] if isinstance(line[2], int) and not isinstance(line[2], bool) else 0
    return line[1], calls


def replay(s: Session, d: SearchDomain, inst: Instance, partial: bool, mutation: bool = True
           ) -> tuple[list[JSONValue] | None, int]:
    """The search, replayed from the sandbox's answers with every check on;
    (the path as JSON states, or None; the number of calls). ``mutation``:
    the expansion lines carry each expanded state as it was after the
    successor call, compared here with the state the search generated."""
    try:
        return _replay(s, d, inst, partial, mutation)
    except Failed:
        raise
    except Exception as e:  # noqa: BLE001 - answers of the wrong shape
        raise _malformed(f"{type(e).__name__}: {str(e)[:200]}") from None


def _replay(s: Session, d: SearchDomain, inst: Instance, partial: bool, mutation: bool
            ) -> tuple[list[JSONValue] | None, int]:
    key, decode, encode = d.key, d.decode, d.encode
    plain = decode is identity
    sargs = dict(zip(d.succ_params, d.succ_args(inst)))
    gargs = dict(zip(d.goal_params, d.goal_args(inst)))
    init = inst.init
    kinit = key(init)
    seen: dict = {kinit: (None, init)}  # state key -> (parent key, state)
    bfs = d.algorithm == "bfs"
    frontier: deque = deque()  # keys
    pop = frontier.popleft if bfs else frontier.pop
    children: list = [init]  # the states whose goal answers come next ...
    fresh: list = [kinit]  # ... and the keys of those not seen before, in order
    record = seen.setdefault  # the value given back: the key was not there
    # ["X", tested, successors], or with mutation checks and a state written differently
    # after the successor call than before: ["X", tested, successors, before, after]
    changed = 5 if mutation else 3
    check = d.first_unsound if partial else None
    lines = s.job.lines
    calls = 0

    def upcoming() -> State:
        """The state the next successor call is on (goal answers not yet in
        are taken as false: the sandbox went on searching)."""
        queued = set(frontier)
        order = list(frontier) + [k for k in fresh if k not in queued]
        return seen[order[0] if bfs else order[-1]][1]

    def where(role: str, index: int) -> dict[str, object]:
        if role == "goal":
            return {"state": children[index], "args": gargs}
        return {"state": upcoming(), "args": sargs}

    def path_to(k: Hashable | None) -> list[State]:
        """The states from the one with key ``k`` back to the initial state."""
        out = []
        while k is not None:
            k, state = seen[k]
            out.append(state)
        return out

    while True:
        line = lines.popleft() if lines else s.line(where)
        if type(line) is not list or (len(line) != 3 and len(line) != changed) \
                or line[0] != "X" or type(line[1]) is not int:
            if not isinstance(line, list) or len(line) != 3 or line[0] not in ("E", "F") \
                    or type(line[1]) is not int:
                raise _malformed(f"expected a search step, got {str(line)[:200]}")
            tested = line[1]
            if line[0] == "E" and line[2] == "found":
                if not 1 <= tested <= len(fresh):
                    raise _malformed("the sandbox found a goal among states the search had "
                                     "not generated", "goal")
                calls += tested
                return [encode(x) for x in reversed(path_to(fresh[tested - 1]))], calls
            if line[0] == "F" and tested < len(fresh):  # a goal test failed
                calls += tested
                if isinstance(line[2], dict) and line[2].get("role") == "goal":
                    raise s.claim(line[2], state=seen[fresh[tested]][1], args=gargs)
                raise s.claim(line[2])
            _count(tested, fresh)
            calls += tested
            frontier.extend(fresh)
            if line[0] == "F":
                raise s.claim(line[2], state=seen[frontier[0] if bfs else frontier[-1]][1]
                              if frontier else None, args=sargs)
            if line[2] == "exhausted" and not frontier:
                return None, calls
            raise _malformed(f"the search stopped ({str(line[2])[:40]}) where the replay "
                             "had not")
        tested = line[1]
        if tested != len(fresh):
            _count(tested, fresh)
        calls += tested + 1
        frontier.extend(fresh)
        if not frontier:
            raise _malformed("an expansion after the search had run out of states")
        k = pop()
        state = seen[k][1]
        if len(line) == 5:
            before, after = (line[3], line[4]) if plain else (decode(line[3]),
                                                              decode(line[4]))
            if before != after:
                raise Failed("input_changed", "the successor function changed its input "
                             "state", state=state, before=before, after=after, args=sargs,
                             dead=True)
        children = line[2]
        if type(children) is not list:
            raise _malformed("the successors are not a list")
        if not plain:
            children = [decode(c) for c in children]
        if check is not None:
            bad = check(state, children)
            if bad is not None:
                raise Failed("succ_soundness", bad.message, state=state,
                             successor=bad.successor, args=sargs,
                             check="partial" if bad.partial else "state")
        try:  # the keys not seen before, in order, each recorded (parent key, state)
            fresh = [kc for c in children if record(kc := key(c), new := (k, c)) is new]
        except Exception:  # noqa: BLE001 - not a state of this domain (the search ends)
            from veriplan.domains.autotos.harness import _keyable, jsonable_or_repr

            bad = next(c for c in children if not _keyable(key, c))
            raise Failed("succ_soundness", "the successor function returned "
                         f"{jsonable_or_repr(bad)!r}, which is not a state", state=state,
                         args=sargs) from None


def _count(tested: int, fresh: list) -> None:
    if tested != len(fresh):
        raise _malformed(f"{tested} goal answers where the search needed {len(fresh)} "
                         "(the sandbox skipped states or tested seen ones; or the "
                         "successor function returned states that change when written "
                         "as JSON)", "goal")
