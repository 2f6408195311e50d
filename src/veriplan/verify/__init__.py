"""The verifier: static plan checks, step-wise simulation, validation, feedback.

The batch judge (:func:`validate_many`, :class:`BatchVerdict`, :class:`ItemError`,
from :mod:`veriplan.verify.batch`) is loaded when first named: judging one plan
does without its start-up."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veriplan.verify.consistency import StepError, StepErrorKind, check_plan, check_step
from veriplan.verify.feedback import feedback_text
from veriplan.verify.validator import ValidationResult, validate_plan

if TYPE_CHECKING:
    from veriplan.verify.batch import BatchVerdict, ItemError, validate_many

__all__ = [
    "BatchVerdict", "ItemError", "StepError", "StepErrorKind", "ValidationResult", "check_plan",
    "check_step", "feedback_text", "validate_many", "validate_plan",
]

_BATCH = frozenset({"BatchVerdict", "ItemError", "validate_many"})


def __getattr__(name: str) -> object:
    if name in _BATCH:
        from veriplan.verify import batch

        value = getattr(batch, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'veriplan.verify' has no attribute {name!r}")
