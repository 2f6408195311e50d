"""The data contracts that flow between the pipeline's parts (the paper's C,
text plan, symbol plan and the validation reports of CC, SIM and VAL), as
small typed values."""

from __future__ import annotations

from dataclasses import dataclass, field

from veriplan.core.atom import ConditionPart
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
    names), plus what repair adds later (directives). Everything is in the
    domain's declaration order, which a renaming keeps."""

    actions: tuple[ActionSignature, ...]
    producers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # pred -> actions
    consumers: dict[str, tuple[str, ...]] = field(default_factory=dict)  # pred -> actions
    dependencies: tuple[str, ...] = ()  # "A needs p, which only B adds"
    mutexes: tuple[tuple[str, str], ...] = ()  # lifted predicate pairs never true together
    landmarks: tuple[str, ...] = ()  # ground atoms every plan must make true
    orderings: tuple[tuple[str, str], ...] = ()  # (earlier landmark, later landmark)
    # Ground actions applicable in the initial state: only with the applicable_actions
    # setting (a partial search oracle the paper's C does not have).
    first_actions: tuple[str, ...] = ()
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
    """CC: static screening, a gate before simulation. ``errors`` are static
    defects (unknown action or object, arity, type), ``never_applicable`` steps
    whose static preconditions are false (step, atom), ``first_step_missing``
    the first step's preconditions false in the initial state."""

    passed: bool
    errors: tuple[StepError, ...] = ()
    first_step_applicable: bool | None = None
    first_step_missing: tuple[ConditionPart, ...] = ()
    never_applicable: tuple[tuple[int, str], ...] = ()
    messages: tuple[str, ...] = ()

    @property
    def first_flagged(self) -> int | None:
        """The earliest step CC rejected, if any."""
        steps = [e.index for e in self.errors] + [i for i, _ in self.never_applicable]
        if self.first_step_applicable is False:
            steps.append(1)
        return min(steps) if steps else None


@dataclass(frozen=True)
class SimReport:
    """SIM: step-wise execution from the initial state (no goal check).
    ``state`` is the state before the failing step, or after the last step."""

    executed: bool
    failed_step: int | None = None
    step: Step | None = None
    unsatisfied: tuple[ConditionPart, ...] = ()
    detail: str = ""
    steps_executed: int = 0
    state: int = 0


@dataclass(frozen=True)
class ValReport:
    """VAL: the final verdict on a plan (every step and the goal, by veriplan's
    validator); a plan with a line that did not translate is never valid."""

    valid: bool
    validation: ValidationResult
    unmapped: int = 0

    @property
    def unmet_goals(self) -> tuple[ConditionPart, ...]:
        return self.validation.unmet_goals


@dataclass(frozen=True)
class Outcome:
    """One attempt's verdicts, stage by stage: ``sim`` is None when SIM did not
    run (CC rejected the plan, or the final_validation_only ablation removed
    SIM), ``val`` is None when VAL did not run."""

    plan: SymbolPlan
    cc: CheckReport
    sim: SimReport | None = None
    val: ValReport | None = None

    @property
    def verified(self) -> bool:
        return self.val is not None and self.val.valid

    def stages(self) -> dict[str, bool | None]:
        """Each stage's verdict: True passed, False rejected, None did not run."""
        return {"translate": bool(self.plan.steps) and not self.plan.unmapped,
                "cc": self.cc.passed if self.plan.steps else None,  # nothing to screen
                "sim": None if self.sim is None else self.sim.executed,
                "val": None if self.val is None else self.val.validation.steps_reach_goal}


@dataclass(frozen=True)
class RepairDecision:
    strategy: str  # first_step_constraint, precondition_probing, parameter_swap_landmarks,
    #                translation_repair, binary_feedback
    directives: tuple[str, ...]
    reason: str
    data: dict = field(default_factory=dict)  # e.g. the coupling that chose the strategy
