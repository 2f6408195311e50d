"""Derived predicates (PDDL 2.2 ``:derived``): their rules ground for one task,
and the state closed under them.

A derived atom holds exactly when its rule's body holds, evaluated stratum
by stratum (lowest first, each to its least fixpoint: recursion is allowed,
negation only over lower strata; the parser refuses a domain that cannot be
stratified). Derived atoms are never effects: after every step they are
computed afresh from the basic atoms, as VAL and Fast Downward do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from veriplan.core.atom import Atom
from veriplan.core.condition import Condition, Disj
from veriplan.core.facts import State
from veriplan.pddl.ast import DerivedRule, Formula, FuncTerm, formula_uses_numbers

if TYPE_CHECKING:
    from veriplan.pddl.numeric import Holds
    from veriplan.pddl.task import Task

#: The most ground instances the rules of one task may have.
RULE_LIMIT = 2_000_000


class Axioms:
    """The derived rules of ``task``, ground (one entry per binding of a rule's
    parameters), by stratum."""

    def __init__(self, task: Task) -> None:
        domain = task.domain
        by_pred: dict[str, list[DerivedRule]] = {}
        for r in domain.derived:
            by_pred.setdefault(r.pred, []).append(r)
        self.mask = 0
        self.numeric = any(formula_uses_numbers(r.body) for r in domain.derived)
        # per stratum: (head bit, ground body) or (head bit, lifted body, binding)
        self.strata: list[list[tuple[int, Condition]]] = []
        self.lifted: list[list[tuple[int, Formula, dict[str, str]]]] = []
        self.rules: dict[Atom, list[tuple[DerivedRule, dict[str, str]]]] = {}
        left = RULE_LIMIT
        try:
            self._ground(task, domain, by_pred, left)
        finally:
            task._fold = None  # (operators and goals are ground without folding)

    def _ground(self, task: Task, domain, by_pred, left: int) -> None:
        for preds in domain.strata:
            ground: list[tuple[int, Condition]] = []
            lifted: list[tuple[int, Formula, dict[str, str]]] = []
            for pred in preds:
                for rule in by_pred.get(pred, ()):
                    for sub in task._bindings(rule.params):
                        left -= 1
                        if left < 0:
                            from veriplan.errors import PDDLSemanticError

                            raise PDDLSemanticError(
                                f"the derived predicates of domain {domain.name} ground to "
                                f"more than {RULE_LIMIT:,} rule instances over "
                                f"{len(task.objects)} objects; veriplan refuses to ground "
                                "them")
                        head = Atom(pred, tuple(sub[p.name] for p in rule.params))
                        bit = task.facts.bit(head)
                        self.mask |= 1 << bit
                        self.rules.setdefault(head, []).append((rule, sub))
                        if self.numeric:
                            lifted.append((bit, rule.body, sub))
                        else:
                            body = task.condition_folded(rule.body, sub)
                            if not (isinstance(body, Disj) and not body.parts):
                                ground.append((bit, body))  # (one never true: left out)
            self.strata.append(ground)
            self.lifted.append(lifted)

    def close(self, state: State) -> State:
        """``state`` with its derived atoms computed afresh from its basic atoms."""
        state &= ~self.mask
        for rules in self.strata:
            pending = rules
            while pending:
                later = []
                grew = False
                for bit, body in pending:
                    if body.holds(state):
                        state |= 1 << bit
                        grew = True
                    else:
                        later.append((bit, body))
                if not grew:
                    break
                pending = later
        return state

    def close_numeric(self, state: State, values: Mapping[FuncTerm, float],
                      holds: Holds) -> State:
        """:meth:`close` for rules whose bodies compare numbers (raises
        :class:`veriplan.pddl.numeric.Undefined` as their evaluation does)."""
        state &= ~self.mask
        for rules in self.lifted:
            pending = rules
            while pending:
                later = []
                grew = False
                for bit, body, sub in pending:
                    if holds(body, sub, state, values):
                        state |= 1 << bit
                        grew = True
                    else:
                        later.append((bit, body, sub))
                if not grew:
                    break
                pending = later
        return state


def support_text(task: Task, parts, state: State, values=None) -> str:
    """For each derived literal among ``parts`` (false in ``state``), why: the
    rule of a derived atom that no instance of satisfies, or, for a derived atom
    required false, the rule that makes it true. Empty when no part is derived."""
    axioms = task.axioms
    if axioms is None:
        return ""
    from veriplan.core.atom import Literal
    from veriplan.pddl.writer import formula_to_pddl, put_args

    out = []
    for part in parts:
        if not isinstance(part, Literal) or part.atom not in axioms.rules:
            continue
        rules = axioms.rules[part.atom]
        bodies = " or ".join(put_args(formula_to_pddl(r.body), sub) for r, sub in rules)
        if part.positive:
            out.append(f"{part.atom} is derived, and its rule {bodies} does not hold")
        else:
            out.append(f"{part.atom} is derived, and holds by its rule {bodies}")
    return "; ".join(out)
