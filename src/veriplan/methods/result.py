"""What every method's ``solve`` takes (a problem) and returns (a result that
the harness stores)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, overload

from veriplan.core.jsonvalue import JSONValue
from veriplan.core.verdict import Scope
from veriplan.methods.failures import Failure, check_failure
from veriplan.methods.records import Entry, Signal

if TYPE_CHECKING:
    from collections.abc import Callable

    from veriplan.llm.client import LLM
    from veriplan.pddl.task import Task
    from veriplan.planio import PlanBenchConfig


@dataclass(frozen=True)
class PlanningProblem:
    """A planning task as the PDDL methods take it: the task, and optionally a
    PlanBench config (its prompt and natural-language plans) and a solved
    example ``(task, plan)`` for one-shot prompts."""

    task: Task
    # Each of these may also be a function giving it, called only when a method uses it.
    planbench: PlanBenchConfig | Callable[[], PlanBenchConfig | None] | None = None
    example: tuple[Task, list] | Callable[[], tuple[Task, list] | None] | None = None
    name: str = ""

    def __post_init__(self) -> None:
        task = self.task
        if task.domain.temporal or task.problem.timed_literals:
            raise task._numeric_error(
                "a PDDL method (its prompts, plan reading and repairs show instantaneous "
                "actions; a durative action has conditions and effects at its start, end "
                "and over its interval)")

    def planbench_config(self) -> PlanBenchConfig | None:
        return self.planbench() if callable(self.planbench) else self.planbench

    def one_shot_example(self) -> tuple[Task, list] | None:
        return self.example() if callable(self.example) else self.example


def as_problem(problem: PlanningProblem | Task) -> PlanningProblem:
    """A :class:`PlanningProblem` from itself or from a bare task (anything
    else, passed untyped, is a :class:`~veriplan.errors.ConfigError`)."""
    if isinstance(problem, PlanningProblem):
        return problem
    from veriplan.pddl.task import Task

    if isinstance(problem, Task):
        return PlanningProblem(problem)
    from veriplan.errors import ConfigError

    raise ConfigError(f"expected a Task or a PlanningProblem, got {type(problem).__name__}")


@dataclass
class SolveResult:
    """``verified`` is True only when a sound check returned
    :attr:`~veriplan.core.verdict.Verdict.VALID` on ``scope`` (an unknown
    verdict is never verified); ``solved_by`` says who produced the plan
    ("llm", or a fallback's name). ``scope`` says what was checked: for the
    PDDL methods, ``plan`` on exactly the user's domain and problem
    (:attr:`Scope.PLAN_ON_TASK`); AutoToS, hidden-precondition tasks and
    environment episodes say theirs. Results of different scopes are never
    pooled."""

    method: str
    verified: bool
    plan: list[str]
    attempts: int
    llm_calls: int
    tokens: int
    seconds: float
    backend: str = ""
    model: str = ""
    solved_by: str | None = None
    cost: float | None = 0.0
    cache_hits: int = 0
    last_diagnosis: str = ""
    transcript: list[Entry] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    # Method-specific: why an unverified run failed (a member of the method's own
    # failure enum, e.g. DripFailure.GOAL_CONFLICT: see veriplan.methods.failures) and
    # numbers the report breaks results down by (``size``: objects in the task;
    # ``plan_length``; tree size and depth; ...).
    failure: Failure | None = None
    metrics: dict[str, JSONValue] = field(default_factory=dict)
    scope: Scope = Scope.PLAN_ON_TASK
    # Who did what, in one sentence, for methods where the model does part of the
    # work and veriplan another (DRIP: the model decomposes, veriplan executes).
    credit: str = ""

    def __post_init__(self) -> None:
        self.scope = Scope.read(self.scope, record=f"result of {self.method}")
        self.failure = check_failure(self.failure, method=self.method)

    @property
    def verified_on(self) -> str:
        """"verified ..." in words, naming the scope (what every printed or
        stored "verified" says)."""
        return f"verified {self.scope.describes}" if self.verified else "not verified"

    def to_dict(self) -> dict[str, JSONValue]:
        """What the run store keeps of the result: its fields as JSON values
        (``scope`` and ``failure`` as their values)."""
        d = asdict(self)
        d["scope"] = self.scope.value
        d["failure"] = self.failure.value if self.failure is not None else None
        return d


class Usage(TypedDict):
    """A run's LLM usage so far (:meth:`Run.usage`; ``cost`` None when a call's
    price is unknown)."""

    calls: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    tokens: int
    latency: float
    cost: float | None


R = TypeVar("R", bound=SolveResult)


class Run:
    """A method run's clock and LLM session: ``Run(llm)`` when ``solve`` starts
    (a session of whatever client it was given, so the run's usage is its own
    even when the caller shares the client across threads), :meth:`result` at
    the end."""

    def __init__(self, method: str, llm: LLM) -> None:
        self.method = method
        self.llm = llm.session()
        self.start = time.perf_counter()

    def usage(self) -> Usage:
        """Calls, tokens, cost and cache hits of this run so far."""
        return self.llm.usage.totals()  # type: ignore[return-value]

    # ``fields``: the rest of the result's fields, each of its own type (Any: passed on).
    @overload
    def result(self, *, verified: bool, plan: list[str], attempts: int = 1,
               **fields: Any) -> SolveResult: ...

    @overload
    def result(self, *, verified: bool, plan: list[str], attempts: int = 1,
               cls: type[R], **fields: Any) -> R: ...

    def result(self, *, verified: bool, plan: list[str], attempts: int = 1,
               cls: type[SolveResult] = SolveResult, **fields: Any) -> SolveResult:
        u = self.usage()
        fields.setdefault("solved_by", "llm" if verified else None)
        return cls(method=self.method, verified=verified, plan=plan, attempts=attempts,
                   llm_calls=u["calls"], tokens=u["tokens"],
                   seconds=time.perf_counter() - self.start, backend=self.llm.name,
                   model=self.llm.model, cost=u["cost"], cache_hits=u["cache_hits"],
                   **fields)
