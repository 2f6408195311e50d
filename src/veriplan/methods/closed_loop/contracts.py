"""The data contracts that flow between the pipeline's parts (the paper's C,
text plan, symbol plan and validation reports), as small typed values."""

from __future__ import annotations

from dataclasses import dataclass, field

from veriplan.core.plan import Step
from veriplan.planio.parsed import UnreadLine
from veriplan.verify import StepError, ValidationResult


@dataclass(frozen=True)
class ActionSignature:
    """One action's structure: parameters with types, and the predicates it
    needs, adds and deletes, written over its parameter names."""

    name: str
    params: tuple[tuple[str, str], ...]
    needs: tuple[str, ...]
    needs_false: tuple[str, ...]
    adds: tuple[str, ...]
    deletes: tuple[str, ...]


@dataclass(frozen=True)
class ConstraintSet:
    """C: what structural comprehension derives from the PDDL alone (never from
    names), plus what repair adds later (directives)."""

    actions: tuple[ActionSignature, ...]
    producers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # pred -> actions
    consumers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # pred -> actions
    dependencies: tuple[str, ...] = ()  # "A needs p, which only B adds"
    mutexes: tuple[tuple[str, str], ...] = ()  # lifted predicate pairs never true together
    landmarks: tuple[str, ...] = ()  # ground atoms every plan must make true
    orderings: tuple[tuple[str, str], ...] = ()  # (earlier landmark, later landmark)
    first_actions: tuple[str, ...] = ()  # ground actions applicable in the initial state
    deep: bool = True  # False: types and arity only (the shallow ablation)
    directives: tuple[str, ...] = ()  # repair instructions from the last failure


@dataclass(frozen=True)
class TextPlan:
    text: str
    attempt: int


@dataclass(frozen=True)
class SymbolPlan:
    steps: tuple[Step, ...]
    unmapped: tuple[UnreadLine, ...]  # every line that did not map
    by_structure: tuple[int, ...] = ()  # lines mapped by signature, not by name


@dataclass(frozen=True)
class CheckReport:
    """CC: static screening before simulation."""

    passed: bool
    errors: tuple[StepError, ...] = ()
    first_step_applicable: bool | None = None
    never_applicable: tuple[int, ...] = ()  # steps whose static preconditions are false
    messages: tuple[str, ...] = ()


@dataclass(frozen=True)
class SimReport:
    """SIM + VAL: step-wise simulation and the final verdict."""

    valid: bool
    validation: ValidationResult
    stepwise: bool = True  # False: only the binary verdict is exposed (ablation)

    @property
    def failed_step(self) -> int | None:
        return self.validation.failed_step if self.stepwise else None


@dataclass(frozen=True)
class RepairDecision:
    strategy: str  # first_step_constraint, precondition_probing, parameter_swap_landmarks,
    #                translation_repair, random_regeneration, stop
    directives: tuple[str, ...]
    reason: str
