"""The verifier: static plan checks, step-wise simulation, validation, feedback."""

from veriplan.verify.batch import BatchVerdict, ItemError, validate_many
from veriplan.verify.consistency import StepError, StepErrorKind, check_plan, check_step
from veriplan.verify.feedback import feedback_text
from veriplan.verify.validator import ValidationResult, validate_plan

__all__ = [
    "BatchVerdict", "ItemError", "StepError", "StepErrorKind", "ValidationResult", "check_plan",
    "check_step", "feedback_text", "validate_many", "validate_plan",
]
