"""Thoughts of Search (Katz et al., 2024) as a baseline of SQ-BCP on
hidden-fact PDDL (``hidden-tos``): the model writes the search components as
code and a breadth-first search over them plans; one shot, no feedback loop
(AutoToS, :mod:`veriplan.methods.autotos`, is the loop).

The prompt has the other hidden baselines' structure (the goal with the
task's objects, the hard constraints, the actions with their preconditions
and effects, the known facts and the same k-reveal variant), with the same
optional oracle round first (``oracle=true``: the model may answer with
"Ask: ..." lines, answered by the same oracle, and is asked again with the
answers shown). Then it writes, in one Python block:

- ``initial_state()``: the start as the model takes it to be. Classical ToS
  gets its start from the instance; here part of it is withheld, so the
  model states it (from the known facts and the answers; any other atom is
  an assumption, counted in ``metrics.assumed``);
- ``successor_states(state)``: (action, next_state) pairs, the action written
  as a step of the plan, "(name arg ...)";
- ``is_goal(state)``.

A state is a frozenset of ground atom strings such as "(on a b)". The code
runs only in veriplan's sandbox (:mod:`veriplan.sandbox`, the runner AutoToS
uses, each call timed from outside; the sandbox side is
:mod:`veriplan.domains.autotos.tos_harness`); the search is bounded by
``max_depth`` (plan length), ``max_expansions``, ``call_limit`` per call and
``search_limit`` in all. The path's actions are the plan, judged by the
task's decider exactly as the other baselines' plans (the same ``_finish``).
Code that is missing, fails to load, raises, answers outside the documented
form or times out, and a search that reaches no goal, end as "no plan" with
the reason as a :class:`ToSError` in ``metrics.tos_error`` (and the function
and detail beside it), never as an exception.

Recipes and how-to have no symbolic state to write these functions over (a
step is free text): :func:`tos` refuses them with :class:`UnsupportedFamilyError`.
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

from veriplan.core.problems import ProblemKind
from veriplan.domains.hidden.pddl_hidden import FAMILY as PDDL_FAMILY
from veriplan.domains.hidden.task import HiddenTask, atom_key
from veriplan.errors import ConfigError
from veriplan.llm.client import LLM
from veriplan.methods.autotos.method import function_code
from veriplan.methods.baselines.hidden import Config as BaseConfig
from veriplan.methods.baselines.hidden import _finish, _Setting, _with_oracle
from veriplan.methods.records import Entry, Observer, quiet
from veriplan.methods.result import Run, SolveResult
from veriplan.methods.settings import check
from veriplan.methods.sqbcp.config import Config as SQConfig

if TYPE_CHECKING:
    from veriplan.sandbox.runner import Ended

PROBLEM = ProblemKind.HIDDEN
TARGET = "veriplan.domains.autotos.tos_harness:job"
TEMPLATE = "hidden_tos.j2"


class UnsupportedFamilyError(ConfigError):
    """A task of a family ToS cannot plan (no symbolic state)."""


class ToSError(StrEnum):
    """Why ToS produced no plan (``metrics.tos_error``; None when it did)."""

    NO_CODE = "no_code"  # the answer has no Python block defining a function
    PARSE_ERROR = "parse_error"  # the code does not compile
    MISSING_FUNCTION = "missing_function"  # initial_state, successor_states or is_goal
    EXCEPTION = "exception"  # defining the functions or a call raised (or ended the process)
    BAD_VALUE = "bad_value"  # a function answered outside the documented form
    TIMEOUT = "timeout"  # a call ran past call_limit, or the sandbox past its time
    EXHAUSTED = "exhausted"  # every state reachable within the bounds searched: no goal
    BUDGET = "budget"  # max_depth, max_expansions or search_limit reached: no goal
    EMPTY_PLAN = "empty_plan"  # the start state passes the goal test already
    SANDBOX = "sandbox"  # the sandbox's answer was missing or malformed


@dataclass(frozen=True)
class Config:
    k: int = 1  # revealed latent preconditions (the k-reveal protocol)
    reveal_seed: int = 0
    max_questions: int = 8  # questions in the oracle round
    oracle: bool = True  # the oracle round first, as Direct, CoT and ToT (issue 33)
    max_depth: int = 50  # longest plan searched (BFS depth bound)
    max_expansions: int = 50_000  # successor_states calls, at most
    call_limit: float = 1.0  # seconds per call of the model's code (AutoToS's)
    search_limit: float = 60.0  # seconds for the whole search
    temperature: float = 0.0
    max_tokens: int = SQConfig.max_tokens  # SQ-BCP's, per answer
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, minimum={"k": 0, "max_questions": 0, "max_depth": 1, "max_expansions": 1,
                             "call_limit": 0.001, "search_limit": 0.001, "temperature": 0.0,
                             "max_tokens": 1})

    def shared(self) -> BaseConfig:
        """The settings every hidden baseline shares (prompt, oracle round, decoding)."""
        return BaseConfig(k=self.k, reveal_seed=self.reveal_seed,
                          max_questions=self.max_questions, oracle=self.oracle,
                          temperature=self.temperature, max_tokens=self.max_tokens,
                          seed=self.seed)


@dataclass(frozen=True)
class SearchOutcome:
    """What the search over the model's code gave: the plan's actions, or the
    reason there is none (``function``: the function it is about, if one)."""

    actions: tuple[str, ...] = ()
    error: ToSError | None = None
    function: str = ""
    detail: str = ""
    start: tuple[str, ...] = ()
    expanded: int = 0
    generated: int = 0


_NO_GOAL = {"exhausted": ToSError.EXHAUSTED, "depth": ToSError.BUDGET,
            "expansions": ToSError.BUDGET, "time": ToSError.BUDGET}
_CATEGORIES = {"parse_error": ToSError.PARSE_ERROR,
               "missing_function": ToSError.MISSING_FUNCTION,
               "exception": ToSError.EXCEPTION, "bad_value": ToSError.BAD_VALUE}


def search(code: str, config: Config) -> SearchOutcome:
    """Run the model's ``code`` in the sandbox and search; never raises for
    anything the code does (it raises
    :class:`~veriplan.sandbox.SandboxUnavailableError` when there is no sandbox)."""
    from veriplan.sandbox import Ended, Job, Limits, Stalled
    from veriplan.sandbox.secrets import scrub

    payload = {"code": code, "max_depth": config.max_depth,
               "max_expansions": config.max_expansions, "search_limit": config.search_limit}
    wall = config.search_limit + 30
    limits = Limits(wall_seconds=wall, cpu_seconds=int(wall) + 5)
    start: tuple[str, ...] = ()
    with Job(TARGET, payload, limits, call_limit=config.call_limit) as job:
        while True:
            try:
                line = job.next()
            except Stalled as e:
                name = _function(e.role, e.index)
                return SearchOutcome(error=ToSError.TIMEOUT, function=name, start=start,
                                     detail=f"{name} took longer than {config.call_limit:g} s "
                                            "(stopped from outside)")
            except Ended as e:
                return _ended(e, start)
            out = _read(line, start, config)
            if isinstance(out, SearchOutcome):  # what comes back is scrubbed, as AutoToS's
                return replace(out, detail=scrub(out.detail),
                               actions=tuple(scrub(list(out.actions))))
            start = out


def _function(role: str, index: int) -> str:
    from veriplan.domains.autotos.tos_harness import CALLS

    return "is_goal" if role == "goal" else CALLS.get(index, "the code")


def _read(line: object, start: tuple[str, ...], config: Config
          ) -> SearchOutcome | tuple[str, ...]:
    """One answer line: the start state (returned as such) or the outcome."""
    def malformed() -> SearchOutcome:
        return SearchOutcome(error=ToSError.SANDBOX, start=start,
                             detail=f"the sandbox's answer was malformed: {str(line)[:200]}")

    if not isinstance(line, list) or not line or not isinstance(line[0], str):
        return malformed()
    tag, rest = line[0], line[1:]
    if tag == "S" and len(rest) == 1 and _strings(rest[0]):
        return tuple(rest[0])
    if tag in ("R", "N") and len(rest) == 3 and all(_count(x) for x in rest[1:]):
        expanded, generated = rest[1], rest[2]
        if tag == "R" and _strings(rest[0]) and len(rest[0]) <= config.max_depth:
            if not rest[0]:
                return SearchOutcome(error=ToSError.EMPTY_PLAN, start=start, detail=(
                    "the start state passes the goal test: an empty plan"))
            return SearchOutcome(tuple(rest[0]), start=start, expanded=expanded,
                                 generated=generated)
        if tag == "N" and rest[0] in _NO_GOAL:
            return SearchOutcome(error=_NO_GOAL[rest[0]], start=start, expanded=expanded,
                                 generated=generated, detail=_no_goal(rest[0], config))
    if tag == "F" and len(rest) == 3 and rest[0] in _CATEGORIES and _strings(rest[1:]):
        return SearchOutcome(error=_CATEGORIES[rest[0]], function=rest[1], start=start,
                             detail=rest[2][:2000])
    if tag == "D":  # the job ended without an outcome line
        data = rest[0] if rest and isinstance(rest[0], dict) else {}
        return SearchOutcome(error=ToSError.SANDBOX, start=start, detail=(
            "the sandbox ended without an outcome: "
            + str(data.get("detail") or data.get("escaped") or "no line")[:300]))
    return malformed()


def _strings(x: object) -> bool:
    return isinstance(x, list) and all(isinstance(s, str) for s in x)


def _count(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _no_goal(reason: str, config: Config) -> str:
    return {"exhausted": "the search reached every state it could: none passes is_goal",
            "depth": f"no goal state within {config.max_depth} steps (max_depth)",
            "expansions": f"no goal state within {config.max_expansions} expansions "
                          "(max_expansions)",
            "time": f"no goal state within {config.search_limit:g} s (search_limit)"}[reason]


def _ended(e: Ended, start: tuple[str, ...]) -> SearchOutcome:
    kind, rc, code, detail = e.kind, e.returncode, e.code, str(e.detail)[:300]
    if kind == "timeout" or (kind == "exit" and rc in (-signal.SIGXCPU, -signal.SIGKILL)):
        return SearchOutcome(error=ToSError.TIMEOUT, start=start,
                             detail=f"the sandbox's time ran out: {detail}")
    if kind == "too_large":
        return SearchOutcome(error=ToSError.BAD_VALUE, start=start,
                             detail=f"the code's answers outgrew what veriplan accepts: {detail}")
    if kind == "exit" and code:
        name = _function(e.role, code & ((1 << 23) - 1))
        return SearchOutcome(error=ToSError.EXCEPTION, function=name, start=start,
                             detail=f"{name} ended the sandbox's process ({detail})")
    return SearchOutcome(error=ToSError.SANDBOX, start=start,
                         detail=f"the sandbox's answer was missing: {detail}")


def stated_atoms(s: _Setting) -> frozenset[str]:
    """The atoms the prompt states as holding: the known facts that are atoms
    and the atom each question answered "yes" names."""
    out = {a for f in s.values["facts"] if (a := atom_key(f))}
    for question, answer in s.oracle.log:
        if answer.status == "yes":
            named = {k for m in re.finditer(r"\([^()]*\)", question) if (k := atom_key(m[0]))}
            if len(named) == 1:
                out |= named
    return frozenset(out)


def tos(problem: HiddenTask, llm: LLM, config: Config = Config(), *,
        observer: Observer | None = None) -> SolveResult:
    """Thoughts of Search on a hidden-fact PDDL task (see the module docstring)."""
    if problem.family != PDDL_FAMILY:
        raise UnsupportedFamilyError(
            f"hidden-tos: task {problem.id} is of the {problem.family!r} family, whose steps "
            "are free text with no symbolic state to write successor_states and is_goal "
            f"over; ToS runs on the {PDDL_FAMILY!r} family only (use hidden-direct, "
            "hidden-cot, hidden-tot, hidden-react or self-ask on it)")
    base = config.shared()
    run, s, log = Run("hidden-tos", llm), _Setting(problem, base), []
    text = _with_oracle(run, s, log, TEMPLATE, base)
    code = function_code(text)
    if code is None:
        outcome = SearchOutcome(error=ToSError.NO_CODE, detail=(
            "the answer has no Python block defining a function"))
    else:
        outcome = search(code, config)
    assumed = sorted(set(outcome.start) - stated_atoms(s))
    verdict = (f"the search found {len(outcome.actions)} action(s)" if outcome.error is None
               else f"no plan: {outcome.error.value}"
               + (f" ({outcome.function})" if outcome.function else "")
               + (f": {outcome.detail}" if outcome.detail else ""))
    log.append(Entry(None, "search", ok=outcome.error is None, verdict=verdict,
                     plan=list(outcome.actions),
                     data={"expanded": outcome.expanded, "generated": outcome.generated,
                           "start": list(outcome.start), "assumed": assumed}))
    extra = {"tos_error": outcome.error, "tos_function": outcome.function,
             "tos_detail": outcome.detail, "expanded": outcome.expanded,
             "generated": outcome.generated, "assumed": len(assumed)}
    return _finish(run, s, log, list(outcome.actions), observer or quiet, extra)


def _spec():
    from veriplan.methods import MethodSpec

    return MethodSpec("hidden-tos", tos, Config, PROBLEM)


TOS = _spec()
