"""Why a method's run was not verified: a named vocabulary per method.

``SolveResult.failure`` is None for a verified run, else a member of one of
the enums below. The design is one :class:`~enum.StrEnum` per method family
(a method and the baselines that share its verdict path), all in this one
module, because:

- a method's signature says what it can report (DRIP returns a
  :class:`DripFailure` or an :class:`OnTaskFailure`, never an AEC failure),
  and a test can list every member a method may produce;
- a reason shared by several methods is one enum, not a copy per method:
  :class:`OnTaskFailure` (a plan valid in the method's own action space and
  not verified on the user's task) is DRIP's, CoT's and ReAct's;
  :class:`HiddenTaskFailure` is SQ-BCP's and its baselines' (one decider
  judges them all);
- a member's value is exactly the text veriplan stored before failures were
  typed, so stored runs keep their meaning and reports that group by failure
  group the same way (a ``StrEnum`` member equals and hashes as its text; two
  enums that both name ``no_plan`` or ``precondition`` group together, as the
  text did).

Reading a stored failure back (:func:`read_failure`) takes the unit's method:
its text must be a member of an enum that method reports. No failure text
has ever been renamed, so there is no migration table: any other text is a
:class:`~veriplan.errors.RecordError` naming the record and the field, never
a silent relabelling. A method not listed in :data:`REPORTED_BY` (one added
through an entry point, or a test's) may report a member of any enum here.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import TypeAlias


class OnTaskFailure(StrEnum):
    """A plan the method checked in its own action space (DRIP's tower moves,
    or the four actions under the usual names), not verified on the user's
    task (:mod:`veriplan.methods.drip.ontask`): DRIP, CoT, ReAct."""

    # the user's domain is not recognisably Blocksworld: nothing could be mapped back
    NOT_VERIFIED_ON_TASK = "not_verified_on_task"
    # valid in the method's space, mapped back, and rejected by the validator on the task
    INVALID_ON_TASK = "invalid_on_task"


class DripFailure(StrEnum):
    """DRIP's own categories (checked in this order; the first that applies)."""

    ACTUATOR_LOST_CONDITION = "actuator_lost_condition"  # an update answer had no condition
    INVALID_PLAN = "invalid_plan"  # the actuator believed the goal reached; the verifier did not
    INCOMPLETE_DECOMPOSITION = "incomplete_decomposition"  # some unmet goal fact never aimed at
    GOAL_CONFLICT = "goal_conflict"  # undone or conflicting subgoals
    DECOMPOSITION = "decomposition"  # nodes failed to decompose
    # else why the loop stopped
    MAX_ITER = "max_iter"
    CALL_BUDGET = "call_budget"
    STALLED = "stalled"  # a level added no node


class CotFailure(StrEnum):
    """Chain-of-thought (one answer, judged in the method's action space)."""

    NO_PLAN = "no_plan"  # no step could be read
    UNREAD_LINES = "unread_lines"  # some line of the plan was read as no step
    PRECONDITION = "precondition"  # a step's precondition is false where it runs
    GOAL = "goal"  # every step ran; the goal does not hold at the end


class ReactFailure(StrEnum):
    """ReAct (a turn per action, judged in the method's action space)."""

    TOO_LONG = "too_long"  # the plan exceeded the step limit
    INVALID_ACTIONS = "invalid_actions"  # too many actions the environment refused
    PRECONDITION = "precondition"
    GOAL = "goal"


class HiddenTaskFailure(StrEnum):
    """A hidden-precondition task's plan, judged by the task's decider on its
    true facts: SQ-BCP and its baselines (``hidden-*``, ``self-ask``)."""

    NO_PLAN = "no_plan"  # no plan read, or the method accepted none
    VIOLATION = "violation"  # the plan violates a true (hidden) precondition
    UNKNOWN = "unknown"  # no fact of the true task decides it (unknown is not verified)
    WRONG = "wrong"  # the true task says it is wrong otherwise (goal, product)
    NOT_JUDGED = "not_judged"  # no true task to judge on (a person's request)


class AecFailure(StrEnum):
    """An environment episode the simulator did not judge won: AEC and the
    agents that share its loop (``aec-direct``, ``aec-react``, ``wkm``,
    ``query-only``, ``walle-standin``)."""

    NO_ACTION_MODEL = "no_action_model"  # no symbolic action model for the verifier
    ENV_ERROR = "env_error"  # the simulator raised or died
    NOT_WON = "not_won"
    REPLAN_CAP = "replan_cap"  # the replanning rounds ran out
    STEP_BUDGET = "step_budget"  # the environment's step budget is spent
    DONE = "done"  # the environment ended the episode, not won


class AutoToSFailure(StrEnum):
    """AutoToS's search components (judged on the domain's instances)."""

    BUDGET_EXHAUSTED = "budget_exhausted"  # the call budget ran out before the checks passed
    CONTEXT_EXCEEDED = "context_exceeded"  # the conversation outgrew the model's context
    INACCURATE = "inaccurate"  # the checks passed; the final accuracy is below 1


Failure: TypeAlias = (OnTaskFailure | DripFailure | CotFailure | ReactFailure
                      | HiddenTaskFailure | AecFailure | AutoToSFailure)

FAILURE_TYPES: tuple[type[StrEnum], ...] = (
    OnTaskFailure, DripFailure, CotFailure, ReactFailure, HiddenTaskFailure, AecFailure,
    AutoToSFailure)

_AEC = (AecFailure,)
_HIDDEN = (HiddenTaskFailure,)

# The built-in methods (registry names, as stored in a run store's ``method``
# column and a result's ``method``), each with the enums of what it can report.
# Methods that report no failure of their own (their signals carry the kinds)
# have none.
REPORTED_BY: Mapping[str, tuple[type[StrEnum], ...]] = {
    "drip": (DripFailure, OnTaskFailure),
    "cot": (CotFailure, OnTaskFailure),
    "react": (ReactFailure, OnTaskFailure),
    "autotos": (AutoToSFailure,),
    "sqbcp": _HIDDEN, "hidden-direct": _HIDDEN, "hidden-cot": _HIDDEN,
    "hidden-tot": _HIDDEN, "hidden-react": _HIDDEN, "self-ask": _HIDDEN, "hidden-tos": _HIDDEN,
    "aec": _AEC, "aec-direct": _AEC, "aec-react": _AEC, "wkm": _AEC, "query-only": _AEC,
    "walle-standin": _AEC,
    "backprompt": (), "direct": (), "closed-loop": (),
}


def _names(types: tuple[type[StrEnum], ...]) -> str:
    values = [m.value for t in types for m in t]
    return ", ".join(dict.fromkeys(values)) or "none (it reports no failure of its own)"


def check_failure(value: object, *, method: str) -> Failure | None:
    """``value`` as a method's result carries it: None, or a member of an enum
    ``method`` reports. A bare string, or another method's member, is a
    :class:`TypeError` (a method's bug, not bad input)."""
    if value is None:
        return None
    types = REPORTED_BY.get(method, FAILURE_TYPES)
    if isinstance(value, types):
        return value  # type: ignore[return-value]
    text = str(value) if isinstance(value, str) else repr(value)
    raise TypeError(f"method {method}: failure {text!r} ({type(value).__name__}) is not "
                    f"one it reports; a result's failure is a member of "
                    f"{', '.join(t.__name__ for t in types) or 'no enum'} "
                    "(veriplan.methods.failures) or None")


def read_failure(value: object, *, method: str, record: str) -> Failure | None:
    """The failure stored in ``value`` for a unit of ``method``: None, or the
    member of ``method``'s enums whose text it is. Anything else is a
    :class:`~veriplan.errors.RecordError` naming ``record`` and the field."""
    if value is None:
        return None
    types = REPORTED_BY.get(method, FAILURE_TYPES)
    if isinstance(value, types):
        return value  # type: ignore[return-value]
    if isinstance(value, str):
        for t in types:
            try:
                return t(value)  # type: ignore[return-value]
            except ValueError:
                continue
    from veriplan.errors import RecordError

    raise RecordError(f"{record}: field failure holds {value!r}, which is no failure "
                      f"method {method} reports (it reports: {_names(types)}); re-run the "
                      "unit (delete its row, or start a new run folder)")


__all__ = ["FAILURE_TYPES", "REPORTED_BY", "AecFailure", "AutoToSFailure", "CotFailure",
           "DripFailure", "Failure", "HiddenTaskFailure", "OnTaskFailure", "ReactFailure",
           "check_failure", "read_failure"]
