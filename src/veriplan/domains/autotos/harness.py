"""The sandbox side of AutoToS's checks: it runs the model's functions and
reports what they returned, as JSON lines; it judges nothing. ``job`` is the
sandbox target. Everything here runs in the same process as model-written
code, so the model can patch or replace any of it: the verdicts (goal unit
tests, soundness, completeness, the searched solutions) are computed by
:mod:`veriplan.methods.autotos.judge` in veriplan's own process from these
lines, and a line that is missing or does not fit is an error category there.

Lines (each a JSON array):

* ``["I", k]``: instance ``k`` of the payload starts (``["A", k]``: its
  alternative, PrOntoQA's negated target, after a search that found nothing);
  written to the pipe at once (the parent gives each instance a deadline of
  its own from this line).
* ``["V", value]``: one call's result (goal tests: the goal test's answer;
  completeness: the successor function's states).
* ``["X", n, successors]``: one expansion of the search: ``n`` goal tests
  answered false since the previous line (the previous expansion's successors
  not seen before; for the first expansion, the initial state), then the
  successors of the state the search expands next (the parent replays the
  search, with its own duplicate detection, to know which states those are).
  With the mutation check on, a state the successor call left written
  differently adds ``before, after`` (the parent compares them as values:
  ``input_changed`` is decided there, not here).
* ``["E", n, "found" | "exhausted"]``: the search stopped (``found``: the
  ``n``-th answer was true).
* ``["R", path, calls]``: a search's result without its trace (the evaluation
  with the per-transition checks off: the path is validated in the parent).
* ``["F", n, failure]``: a call failed (an exception, a value that is not a
  state, an input state left as something that is not one, the search's
  time ran out) after
  ``n`` false goal answers; the failure's ``role`` says which function.

Every call of a generated function writes its code on the heartbeat first
(:class:`veriplan.sandbox.child.Channel`: ``beat[0]`` while it runs, ``beat[3]``
kept after), so the parent, which keeps the time itself, knows which call
overran when it kills the sandbox (C loops included).
"""

from __future__ import annotations

import builtins
import gc
import json
import operator
import time
import traceback
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from veriplan.domains.autotos import builtin_domain
from veriplan.domains.autotos.base import Instance, SearchDomain, State, identity

if TYPE_CHECKING:  # types only: this module runs in the sandbox child
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.sandbox.child import Channel

SUCC, GOAL = 0, 1 << 23  # heartbeat role bits
# The paper's ten error categories (section 6.1); veriplan adds malformed_answer
# (the sandbox's answer was missing or did not fit: see judge.py)
CATEGORIES = ("succ_soundness", "input_changed", "succ_completeness", "goal_soundness",
              "succ_exception", "goal_exception", "search_timeout", "succ_too_slow",
              "goal_too_slow", "parse_error")


class Failure(Exception):
    def __init__(self, category: str, message: str, role: str, **evidence: object) -> None:
        super().__init__(message)
        self.category, self.message, self.role, self.evidence = category, message, role, evidence

    def data(self) -> dict:
        return {"category": self.category, "message": self.message, "role": self.role,
                "evidence": {k: jsonable_or_repr(v) for k, v in self.evidence.items()}}


def _exc(e: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(e), e)).strip()[-600:]


def jsonable_or_repr(x: object) -> JSONValue:
    try:
        return json.loads(json.dumps(x, default=_sets))
    except (TypeError, ValueError, RecursionError):
        try:
            return repr(x)[:500]
        except Exception:  # noqa: BLE001 - a value whose repr fails
            return f"<{type(x).__name__}>"


def _sets(x: object) -> list[object]:
    if isinstance(x, set | frozenset):
        return sorted(x, key=repr)
    raise TypeError(type(x).__name__)


def load_function(code: str, name: str, role: str, channel: Channel) -> Callable:
    """The function ``name`` defined by ``code`` (else the last function it
    defines). Running the definition is a timed call of the role."""
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": "generated"}
    try:
        compiled = compile(code, f"<generated {role}>", "exec")
    except SyntaxError as e:
        raise Failure("parse_error", f"the {role} code does not parse: {e}", role) from None
    channel.begin(channel.code(GOAL if role == "goal" else SUCC))
    try:
        exec(compiled, namespace)
    except BaseException as e:  # noqa: BLE001 - the model's code failed while defining
        raise Failure(f"{role}_exception", f"defining the {role} function raised "
                      f"{_exc(e)}", role) from None
    finally:
        channel.beat[0] = 0
    if callable(namespace.get(name)):
        return namespace[name]
    funcs = [v for k, v in namespace.items() if callable(v) and getattr(v, "__module__", "")
             == "generated" and not k.startswith("__")]
    if not funcs:
        raise Failure("parse_error", f"the {role} code defines no function", role)
    return funcs[-1]


def _call_failure(role: str, e: BaseException, state: State) -> Failure:
    return Failure(f"{role}_exception", f"the {role} function raised {_exc(e)}", role,
                   state=state)


def job(payload: dict) -> None:
    """The sandbox target. ``mode``: goal_tests, completeness, search (``trace``:
    every expansion, for the checks; else only the path)."""
    from veriplan.sandbox.child import CHANNEL as ch

    domain = builtin_domain(payload["domain"])
    # The search tree holds millions of small acyclic objects; a garbage-collector
    # pass over them can take longer than the call limit and would be blamed on
    # the generated function. The address-space limit bounds memory instead.
    gc.disable()
    mode = payload["mode"]
    try:
        succ = load_function(payload["succ_code"], "succ", "succ", ch) \
            if mode != "goal_tests" else None
        goal = load_function(payload["goal_code"], "goal", "goal", ch) \
            if mode != "completeness" else None
    except Failure as f:
        ch.send(["F", 0, f.data()])
        return
    instances = [Instance(i["id"], domain.decode(i["init"]), i.get("meta", {}))
                 for i in payload["instances"]]
    for k, inst in enumerate(instances):
        ch.send(["I", k])
        ch.flush()  # on the pipe now: the parent times the instance from it
        try:
            if mode == "goal_tests":
                args = domain.goal_args(inst)
                ch.begin(ch.code(GOAL))
                try:
                    value = bool(goal(inst.init, *args))
                except BaseException as e:  # noqa: BLE001 - the model's error
                    raise _call_failure("goal", e, inst.init) from None
                ch.send(["V", value])
            elif mode == "completeness":
                args = domain.succ_args(inst)
                ch.begin(ch.code(SUCC))
                try:
                    out = list(succ(inst.init, *args))
                except BaseException as e:  # noqa: BLE001 - the model's error
                    raise _call_failure("succ", e, inst.init) from None
                ch.beat[0] = 0
                ch.send_text('["V",' + _states(domain, out, inst.init) + "]")
            elif search(domain, inst, succ, goal, ch, payload) == "exhausted":
                other = domain.alternative(inst)  # PrOntoQA: the negated target
                if other is not None:
                    ch.send(["A", k])
                    ch.flush()
                    search(domain, other, succ, goal, ch, payload)
        except Failure as f:
            ch.send(["F", 0, f.data()])
        except MemoryError:
            ch.send(["F", 0, {"category": "succ_exception", "role": "succ", "evidence": {},
                               "message": "the search ran out of memory (MemoryError)"}])


def _states(domain: SearchDomain, out: list, parent: State) -> str:
    """The successors as JSON text, or a failure: they must be states."""
    encode = domain.encode
    try:
        return json.dumps([encode(c) for c in out], separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        bad = next((c for c in out if not _is_json(encode, c)), out)
        raise Failure("succ_soundness", f"the successor function returned "
                      f"{jsonable_or_repr(bad)!r}, which is not a state (lists, dicts, "
                      "strings and numbers only)", "succ", state=parent) from None
    except Exception:  # noqa: BLE001 - the domain cannot even read it
        raise Failure("succ_soundness", "the successor function returned a value that is "
                      "not a state of this domain", "succ", state=parent) from None


def _is_json(encode: Callable, x: Any) -> bool:
    try:
        json.dumps(encode(x))
    except Exception:  # noqa: BLE001
        return False
    return True


def search(d: SearchDomain, inst: Instance, succ: Callable, goal: Callable, ch: Channel,
           payload: dict) -> str:
    """BFS (goal test on generation) or DFS over the model's functions. With
    ``trace`` every expansion goes to the parent, which replays the search and
    checks it; without, only the path (or None) and the number of calls.
    With ``mutation`` the expanded state is written as JSON before and after
    the successor call; when the two texts differ, the line carries both and
    the parent compares them as values (this harness judges nothing).
    Returns ``found``, ``exhausted`` or ``failed`` (the failure is sent).
    ``tested`` in a line counts the goal answers since the previous line (all
    false but, in ``["E", n, "found"]``, the last)."""
    trace = payload["trace"]
    mutation = trace and payload.get("mutation", False)
    deadline = time.perf_counter() + payload["search_limit"]
    sargs, gargs = d.succ_args(inst), d.goal_args(inst)
    key, encode, beat, send = d.key, d.encode, ch.beat, ch.send_bytes
    dumps = _encoder()
    fast = _fast_encoder()
    plain = encode is identity
    if not plain:
        fast = None
    clock = time.perf_counter
    init = inst.init
    ch.begin(ch.code(GOAL))
    try:
        reached = bool(goal(init, *gargs))
    except BaseException as e:  # noqa: BLE001 - timeout or the model's error
        beat[0] = 0
        raise _call_failure("goal", e, init) from None
    beat[0] = 0
    calls = tested = 1
    kinit = key(init)
    seen: dict = {kinit: None}  # state key -> (parent key, state)
    if reached:
        return _found(ch, trace, tested, [init], d, calls)
    frontier: deque = deque([(init, kinit)])  # (state, key)
    pop = frontier.popleft if d.algorithm == "bfs" else frontier.pop
    push = frontier.append
    sequence = ch.sequence
    scalars, is_not = _SCALARS, operator.is_not
    try:
        while frontier:
            if clock() > deadline:
                ch.send(["F", tested, {"category": "search_timeout", "role": "succ",
                                       "evidence": {}, "message": "the search ran out of time"}])
                return "failed"
            s, ks = pop()
            before = snapshot = None
            if mutation:  # the state as the successor function gets it
                if plain and type(s) is list and set(map(type, s)) <= scalars:
                    # a list of immutable values: the same values in the same places
                    # after the call write the same text (compared below)
                    snapshot = s.copy()
                else:
                    before = _text(dumps, None if plain else encode, s)
            sequence += 1
            beat[0] = beat[3] = sequence << 24
            calls += 1
            try:
                out = list(succ(s, *sargs) if sargs else succ(s))
            except BaseException as e:  # noqa: BLE001 - the model's error
                beat[0] = 0
                ch.send(["F", tested, _call_failure("succ", e, s).data()])
                return "failed"
            beat[0] = 0
            if trace:
                text = None
                if fast is not None:
                    try:
                        text = fast(out, option=_ORJSON)
                    except TypeError:  # orjson's refusals: the standard library decides
                        pass
                    else:
                        if b"null" in text:  # NaN and infinities: written as the
                            text = None      # standard library writes them
                try:
                    if text is None:
                        text = dumps(out if plain else [encode(c) for c in out])
                    if snapshot is not None:
                        if type(s) is list and len(s) == len(snapshot) \
                                and not any(map(is_not, s, snapshot)):
                            after = before = b""
                        else:  # the texts decide, as for any other state
                            before = _text(dumps, None, snapshot)
                            after = dumps(s)
                    elif mutation:
                        after = dumps(s if plain else encode(s))
                    else:
                        after = before = b""
                except Exception:  # noqa: BLE001 - not JSON: find the culprit
                    ch.send(["F", tested, _not_json(d, out, s).data()])
                    return "failed"
                if after == before:  # the same text: the same value
                    send(b'["X",%d,%b]\n' % (tested, text))
                else:  # the parent compares the values
                    send(b'["X",%d,%b,%b,%b]\n' % (tested, text, before, after))
            tested = 0
            sequence += 1
            base = (sequence << 24) | GOAL
            try:
                keys = list(map(key, out))
            except Exception:  # noqa: BLE001 - not a state of this domain
                child = next(c for c in out if not _keyable(key, c))
                ch.send(["F", tested, Failure(
                    "succ_soundness", f"the successor function returned "
                    f"{jsonable_or_repr(child)!r}, which is not a state", "succ",
                    state=s).data()])
                return "failed"
            for j, kc in enumerate(keys):
                try:
                    if kc in seen:
                        continue
                except TypeError:  # a key that cannot be hashed: not a state of this domain
                    ch.send(["F", tested, Failure(
                        "succ_soundness", f"the successor function returned "
                        f"{jsonable_or_repr(out[j])!r}, which is not a state", "succ",
                        state=s).data()])
                    return "failed"
                child = out[j]
                seen[kc] = (ks, child)
                beat[0] = beat[3] = base + j
                try:  # the answer's truth value is the model's code too
                    if goal(child, *gargs) if gargs else goal(child):
                        reached = True
                    else:
                        tested += 1
                        push((child, kc))
                        continue
                except BaseException as e:  # noqa: BLE001 - the model's error
                    beat[0] = 0
                    ch.send(["F", tested, _call_failure("goal", e, child).data()])
                    return "failed"
                tested += 1
                beat[0] = 0
                calls += tested
                path = []
                while seen[kc] is not None:
                    kc, state = seen[kc]
                    path.append(state)
                path.append(init)
                return _found(ch, trace, tested, path[::-1], d, calls)
            calls += tested
            beat[0] = 0
    finally:
        ch.sequence = sequence
    if trace:
        ch.send(["E", tested, "exhausted"])
    else:
        ch.send(["R", None, calls])
    return "exhausted"


_SCALARS = frozenset({int, float, str, bool, type(None)})  # immutable JSON values


def _text(dumps: Callable[[Any], bytes], encode: Callable | None, s: Any) -> bytes:
    """The state ``s`` written as JSON (through the domain's ``encode`` unless
    None); ``null`` when it is not a state (the goal test made it something
    else)."""
    try:
        return dumps(s if encode is None else encode(s))
    except Exception:  # noqa: BLE001 - not JSON
        return b"null"


def _encoder() -> Callable[[Any], bytes]:
    """Compact JSON of a value, as UTF-8: orjson where it is installed (several
    times faster on lists of numbers), else the standard library's C encoder
    built once (``json.dumps`` builds one per call). The two write the same
    values: what orjson writes otherwise or refuses (NaN and infinities, which
    it writes as null; integers past 64 bits; keys that are not strings;
    subclasses, dataclasses and dates, passed through) goes through the
    standard library, as before. One difference is left: orjson writes an
    enumeration member or a UUID as its value, where the standard library
    refuses it (a successor made of those is then a state, not an error)."""
    from json import encoder as std

    make = std.c_make_encoder
    if make is None:  # an interpreter without the C accelerator
        slow = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
        standard: Callable[[Any], bytes] = lambda x: slow(x).encode()  # noqa: E731
    else:
        def refuse(x: Any) -> Any:
            raise TypeError(f"{type(x).__name__} is not JSON")

        encode = make(None, refuse, std.encode_basestring_ascii, None, ":", ",", False,
                      False, True)
        join = "".join
        standard = lambda x: join(encode(x, 0)).encode()  # noqa: E731
    fast, option = _fast_encoder(), _ORJSON
    if fast is None:
        return standard

    def dumps(x: Any) -> bytes:
        try:
            text = fast(x, option=option)
        except TypeError:  # orjson's refusals (JSONEncodeError is one)
            return standard(x)
        return standard(x) if b"null" in text else text

    return dumps


def _fast_encoder() -> Callable[..., bytes] | None:
    """``orjson.dumps`` where it is installed (called with ``option=_ORJSON``;
    its text stands only when it has no ``null``, else see :func:`_encoder`)."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.dumps


try:  # what orjson passes to the standard library's rules (here: refuses)
    import orjson as _orjson

    _ORJSON = (_orjson.OPT_PASSTHROUGH_DATACLASS | _orjson.OPT_PASSTHROUGH_DATETIME
               | _orjson.OPT_PASSTHROUGH_SUBCLASS)
except ImportError:
    _ORJSON = 0


def _not_json(d: SearchDomain, out: list, s: State) -> Failure:
    """Why an expansion could not be written: a successor that is not a
    state, else the input state, which the call left as something that is not
    one (it was JSON when the search reached it)."""
    try:
        _states(d, out, s)
    except Failure as f:
        return f
    return Failure("input_changed", "the successor function changed its input state into "
                   "something that is not a state", "succ", after=s)


def _keyable(key: Callable, x: Any) -> bool:
    """``x`` has a key the search can record (one it can hash)."""
    try:
        hash(key(x))
    except Exception:  # noqa: BLE001
        return False
    return True


def _found(ch: Channel, trace: bool, tested: int, path: list, d: SearchDomain, calls: int) -> str:
    if trace:
        ch.send(["E", tested, "found"])
        return "found"
    try:
        ch.send(["R", [d.encode(x) for x in path], calls])
        return "found"
    except (TypeError, ValueError):
        ch.send(["F", tested, {"category": "succ_soundness", "role": "succ", "evidence": {},
                              "message": "the path found is made of values that are not "
                                         "states (lists, dicts, strings and numbers only)"}])
        return "failed"
