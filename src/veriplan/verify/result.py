"""What a validation concluded: :class:`ValidationResult` (the verdict on one plan,
its findings, its feedback and its metric value) and the small helpers that word
it. The validators (:mod:`veriplan.verify.validator`, and
:mod:`veriplan.verify.numeric` for numeric tasks) build it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from veriplan.core.atom import ConditionPart, Literal
from veriplan.core.plan import Step
from veriplan.pddl.ast import FuncTerm, MetricDirection
from veriplan.pddl.writer import put_args  # noqa: F401 (re-exported)
from veriplan.verify.consistency import StepError, StepErrorKind

if TYPE_CHECKING:
    from veriplan.core.verdict import Judgement
    from veriplan.pddl.task import Task
    from veriplan.planio.parsed import UnreadLine  # noqa: F401
    from veriplan.verify.constraints import ConstraintViolation, PreferenceReport


@dataclass(frozen=True, slots=True)
class MetricValue:
    """The problem's ``(:metric ...)`` evaluated on the plan's final state (VAL's
    "Final value"): ``value`` a float, ``text`` as VAL prints it."""

    direction: MetricDirection
    expression: str
    value: float

    @property
    def text(self) -> str:
        from veriplan.pddl.numeric import number_text

        return number_text(self.value)

    def to_dict(self) -> dict[str, object]:
        return {"direction": self.direction.value, "expression": self.expression,
                "value": self.value}


def metric_value(task: Task, values: Mapping[FuncTerm, float], total_time: float
                 ) -> MetricValue | None:
    """The task's metric on final fluent ``values`` (None: no metric, or a metric
    without a value there, such as one reading a fluent never set)."""
    metric = task.problem.metric
    if metric is None:
        return None
    from veriplan.pddl import numeric as N

    try:
        v = N.value(metric.expr, {}, values, total_time)
    except N.Undefined:
        return None
    return MetricValue(metric.direction, N.expr_text(metric.expr), v)


@dataclass(frozen=True)
class ValidationResult:
    """The verdict on a plan; a returned value, never an exception.

    ``failed_step`` is 1-based; ``unsatisfied`` lists the failing step's
    preconditions that are false, ``unmet_goals`` the goal parts false at the
    end of a plan that executed, each as a :class:`~veriplan.core.atom.Literal`
    (atom and polarity) or, for a part that is no literal (a false ``(or ...)``),
    a :class:`~veriplan.core.atom.FormulaText`; ``.pddl()`` (or ``str``) of
    either is its PDDL text, e.g. ``(clear b)`` or ``(not (on a b))``.
    ``step_errors`` lists every static defect (unknown action, wrong arity,
    unknown object, wrong type) in the whole plan; ``trace`` the states (sorted
    atoms) before each step and after the last, on request.

    ``metric`` is the problem's ``(:metric ...)`` on the final state of a plan
    that executed (None without a metric). ``cost`` sums the action costs
    (``total-cost``).

    PDDL 3 (:mod:`veriplan.verify.constraints`): ``constraints`` lists the hard
    trajectory constraints the plan breaks (error ``constraint``: the step whose
    state breaks one while the plan runs is ``failed_step``; one judged at the end
    leaves ``failed_step`` None); ``preferences`` counts each preference's
    violations (a plan that violates preferences is still valid), and ``metric``
    prices them as ``(is-violated NAME)``.

    ``unread`` holds the lines of the plan text that were not read as steps
    (from a :class:`~veriplan.planio.ParsedPlan`); a plan with one is never
    valid. The other fields then judge the steps that were read, and ``error``
    is the failing step's kind, or ``unread`` when the steps read have none.
    ``error`` is None only for a valid plan or one whose sole defect is unmet
    goals.
    """

    valid: bool
    plan: tuple[Step, ...]
    failed_step: int | None = None
    action: str | None = None
    error: StepErrorKind | None = None
    detail: str = ""
    unsatisfied: tuple[ConditionPart, ...] = ()
    unmet_goals: tuple[ConditionPart, ...] = ()
    step_errors: tuple[StepError, ...] = ()
    cost: float = 0.0
    steps_executed: int = 0
    trace: tuple[tuple[str, ...], ...] | None = None
    unread: tuple[UnreadLine, ...] = ()
    metric: MetricValue | None = None
    #: PDDL 3: the hard trajectory constraints the plan's states break, and (for a
    #: plan that executed on a task with preferences) each preference's violations
    constraints: tuple[ConstraintViolation, ...] = ()
    preferences: PreferenceReport | None = None

    @property
    def length(self) -> int:
        return len(self.plan)

    @property
    def steps_reach_goal(self) -> bool:
        """True when the steps read execute and reach the goal (``valid`` also
        requires that no line went unread)."""
        return (self.failed_step is None and not self.unmet_goals
                and self.error is not StepErrorKind.CONSTRAINT)

    @property
    def unsatisfied_predicates(self) -> tuple[str, ...]:
        """The predicates of the unsatisfied literals, in order (parts that are
        no literal, such as a false disjunction, name none)."""
        return tuple(u.atom.pred for u in self.unsatisfied if isinstance(u, Literal))

    def judgement(self) -> Judgement:
        """The verdict in the shared vocabulary: valid or invalid (never unknown:
        the task is the true model) on :attr:`Scope.PLAN_ON_TASK`, with one
        finding per unread line, static step error, false precondition and
        unmet goal."""
        # imported here: judging plans by the thousand (validate --batch) needs none of it
        from veriplan.core.verdict import Finding, FindingKind, Judgement, Scope, Verdict

        found: list[Finding] = [
            Finding(FindingKind.UNREAD, None, u.text, f"line {u.line} unread: {u.reason}")
            for u in self.unread]
        kinds = _step_kinds()
        for e in self.step_errors or ():
            if e.kind is not StepErrorKind.PRECONDITION:
                found.append(Finding(kinds[e.kind], e.index, str(e.step), e.detail))
        if self.error is StepErrorKind.PRECONDITION and self.failed_step is not None:
            found += [Finding(FindingKind.PRECONDITION, self.failed_step, u.pddl(),
                              f"{self.action}: precondition {u.pddl()} is false")
                      for u in self.unsatisfied] or [
                Finding(FindingKind.PRECONDITION, self.failed_step, str(self.action),
                        self.detail)]
        elif (self.failed_step is not None and self.error is not None
              and self.error is not StepErrorKind.UNREAD
              and not any(f.step == self.failed_step for f in found)):
            found.append(Finding(kinds[self.error], self.failed_step, str(self.action),
                                 self.detail))
        found += [Finding(FindingKind.GOAL, None, g.pddl(), f"goal {g.pddl()} is not reached")
                  for g in self.unmet_goals]
        found += [Finding(FindingKind.CONSTRAINT, None if c.at_end else c.step,
                          c.constraint, c.text()) for c in self.constraints
                  if c.at_end or c.step is None or c.step != self.failed_step]
        if self.valid:
            return Judgement(Verdict.VALID, Scope.PLAN_ON_TASK)
        if not found:  # an invalid plan always says why; keep the detail if nothing else does
            found.append(Finding(FindingKind.EMPTY if not self.plan else FindingKind.GOAL,
                                 None, "", self.detail or "not valid"))
        return Judgement(Verdict.INVALID, Scope.PLAN_ON_TASK, tuple(found))

    def feedback(self, *, unread: bool = True) -> str:
        """What is wrong, in words (see :func:`~veriplan.verify.feedback_text`);
        ``unread=False`` leaves unread lines out and judges the steps read."""
        from veriplan.verify.feedback import feedback_text

        return feedback_text(self, unread=unread)

    def to_dict(self) -> dict:
        """A JSON-ready dict: steps, literals and goals as PDDL text, unread lines
        as ``unread_lines`` (``line``, ``text``, ``reason``)."""
        return {
            "valid": self.valid,
            "plan": [str(s) for s in self.plan],
            "failed_step": self.failed_step,
            "action": self.action,
            "error": str(self.error) if self.error else None,
            "detail": self.detail,
            "unsatisfied": [u.pddl() for u in self.unsatisfied],
            "unmet_goals": [g.pddl() for g in self.unmet_goals],
            "step_errors": [
                {"index": e.index, "step": str(e.step), "kind": str(e.kind), "detail": e.detail}
                for e in self.step_errors],
            "cost": self.cost,
            "steps_executed": self.steps_executed,
            "trace": [list(s) for s in self.trace] if self.trace is not None else None,
            "feedback": self.feedback(),
            "unread_lines": [{"line": u.line, "text": u.text, "reason": u.reason}
                             for u in self.unread],
            "metric": self.metric.to_dict() if self.metric is not None else None,
            "judgement": self.judgement().to_dict(),
        } | ({  # PDDL 3 (only on such tasks: other results keep their keys)
            "constraints": [c.to_dict() for c in self.constraints],
            "preferences": (self.preferences.to_dict() if self.preferences is not None
                            else None),
        } if self.preferences is not None or self.constraints else {})


def _step_kinds() -> dict:
    """The finding kind of each step error kind."""
    from veriplan.core.verdict import FindingKind

    return {
        StepErrorKind.UNKNOWN_ACTION: FindingKind.UNKNOWN_ACTION,
        StepErrorKind.WRONG_ARITY: FindingKind.BAD_ARGUMENTS,
        StepErrorKind.UNKNOWN_OBJECT: FindingKind.BAD_ARGUMENTS,
        StepErrorKind.WRONG_TYPE: FindingKind.BAD_ARGUMENTS,
        StepErrorKind.PRECONDITION: FindingKind.PRECONDITION,
        StepErrorKind.MUTEX: FindingKind.MUTEX,
        StepErrorKind.UNDEFINED: FindingKind.NUMERIC,
        StepErrorKind.UNREAD: FindingKind.UNREAD,
        StepErrorKind.CONSTRAINT: FindingKind.CONSTRAINT,
    }


def time_text(t: float) -> str:
    return f"{t:.3f}"


def join_parts(items: Sequence[ConditionPart]) -> str:
    texts = [i.pddl() for i in items]
    if len(texts) <= 1:
        return "".join(texts)
    return ", ".join(texts[:-1]) + " and " + texts[-1]
