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
from veriplan.core.condition import Condition, condition_bits
from veriplan.core.facts import State
from veriplan.pddl.ast import DerivedRule, Formula, FuncTerm, formula_uses_numbers

if TYPE_CHECKING:
    from veriplan.pddl.numeric import Holds
    from veriplan.pddl.task import Task

#: The most ground instances the rules of one task may have.
RULE_LIMIT = 2_000_000
#: The most (state, derived atom) answers one task keeps (then it starts afresh).
MEMO_LIMIT = 1 << 18


class Axioms:
    """The derived rules of ``task``, ground on demand: a derived atom's rule
    instances are ground (static atoms folded to their initial values) when the
    atom is first asked about, and a state is closed only over the derived
    atoms something reads, with their supports (recursion included), each
    stratum to its least fixpoint. Answers are kept per (state, atom): plans of
    one problem pass through the same states."""

    def __init__(self, task: Task) -> None:
        domain = task.domain
        self.task = task
        self.facts = task.facts
        self.by_pred: dict[str, list[DerivedRule]] = {}
        for r in domain.derived:
            self.by_pred.setdefault(r.pred, []).append(r)
        self.level = {p: k for k, preds in enumerate(domain.strata) for p in preds}
        self.numeric = any(formula_uses_numbers(r.body) for r in domain.derived)
        # bit -> (its ground body, the derived atoms the body reads)
        self._bodies: dict[int, tuple[Condition, int]] = {}
        self._derived_bits = 0  # the derived atoms interned so far
        self._memo: dict[tuple[int, int], bool] = {}
        self._full: tuple[list[list[tuple[int, Condition]]], int] | None = None
        self.rules: dict[Atom, list[tuple[DerivedRule, dict[str, str]]]] = _Rules(self)

    # ----- ground on demand ----------------------------------------------------------
    def instances(self, atom: Atom) -> list[tuple[DerivedRule, dict[str, str]]]:
        """The rules of ``atom``'s predicate with their parameters bound to its
        arguments (those whose parameter types its arguments fit)."""
        out = []
        for rule in self.by_pred.get(atom.pred, ()):
            if len(rule.params) == len(atom.args) and all(
                    self.task.has_type(a, p.type) for a, p in zip(atom.args, rule.params)):
                out.append((rule, {p.name: a for p, a in zip(rule.params, atom.args)}))
        return out

    def is_derived(self, bit: int) -> bool:
        return self.facts.atoms[bit].pred in self.by_pred

    def body(self, bit: int) -> tuple[Condition, int]:
        """The ground body of derived atom ``bit`` (the disjunction of its rule
        instances) and the derived atoms it reads."""
        hit = self._bodies.get(bit)
        if hit is not None:
            return hit
        from veriplan.core import condition as C

        atom = self.facts.atoms[bit]
        task = self.task
        try:
            parts = [task.condition_folded(rule.body, sub) for rule, sub in self.instances(atom)]
        finally:
            task._fold = None  # (operators and goals are ground without folding)
        body = C.disj(parts) if parts else C.FALSE
        self._derived_bits |= 1 << bit
        reads = 0
        for b in _bits(condition_bits(body)):
            if self.is_derived(b):
                reads |= 1 << b
                self._derived_bits |= 1 << b
        if len(self._bodies) >= RULE_LIMIT:
            from veriplan.errors import PDDLSemanticError

            raise PDDLSemanticError(
                f"the derived predicates of domain {task.domain.name} ground to more than "
                f"{RULE_LIMIT:,} atoms over {len(task.objects)} objects; veriplan refuses "
                "to ground them")
        hit = self._bodies[bit] = (body, reads)
        return hit

    # ----- states ----------------------------------------------------------------------
    def derived_mask(self, mask: int) -> int:
        """The derived atoms among the bits of ``mask``."""
        out = 0
        for b in _bits(mask):
            if self.is_derived(b):
                out |= 1 << b
        return out

    def settle(self, state: State, wanted: int) -> State:
        """``state`` (its derived atoms ignored) with the derived atoms of
        ``wanted`` set to their values, and those of their supports."""
        state &= ~self._derived_bits
        if not wanted:
            return state
        memo = self._memo
        todo = [b for b in _bits(wanted) if (state, b) not in memo]
        if todo:
            self._solve(state, todo)
        out = state
        for b in _bits(wanted):
            if memo[(state, b)]:
                out |= 1 << b
        return out

    def _solve(self, base: State, todo: list[int]) -> None:
        """The values in ``base`` of the derived atoms of ``todo`` and everything they
        read, stratum by stratum, each to its least fixpoint (semi-naive)."""
        relevant: dict[int, tuple[Condition, int]] = {}
        stack = list(todo)
        while stack:
            b = stack.pop()
            if b in relevant:
                continue
            body, reads = self.body(b)
            relevant[b] = (body, reads)
            stack.extend(x for x in _bits(reads) if x not in relevant)
        level = self.level
        name = self.facts.atoms
        strata: dict[int, list[int]] = {}
        for b in relevant:
            strata.setdefault(level[name[b].pred], []).append(b)
        memo = self._memo
        if len(memo) > MEMO_LIMIT:
            memo.clear()
        state = base
        for k in sorted(strata):
            group = strata[k]
            known = [b for b in group if (base, b) in memo]
            for b in known:
                if memo[(base, b)]:
                    state |= 1 << b
            open_ = [b for b in group if (base, b) not in memo]
            users: dict[int, list[int]] = {}
            for b in open_:
                for x in _bits(relevant[b][1]):
                    users.setdefault(x, []).append(b)
            work = list(open_)
            queued = set(work)
            while work:
                b = work.pop()
                queued.discard(b)
                if state >> b & 1:
                    continue
                if relevant[b][0].holds(state):
                    state |= 1 << b
                    for u in users.get(b, ()):
                        if u not in queued and not state >> u & 1:
                            queued.add(u)
                            work.append(u)
            for b in open_:
                memo[(base, b)] = bool(state >> b & 1)

    def close(self, state: State) -> State:
        """``state`` with every derived atom computed afresh from its basic atoms
        (grounds every rule instance once: what search and a full trace need)."""
        if self._full is None:
            every = 0
            for pred, rules in self.by_pred.items():
                for rule in rules:
                    for sub in self.task._bindings(rule.params):
                        atom = Atom(pred, tuple(sub[p.name] for p in rule.params))
                        every |= 1 << self.facts.bit(atom)
            self._full = ([], every)
        return self.settle(state, self._full[1])

    @property
    def strata(self) -> list[list[tuple[int, Condition]]]:
        """Every ground rule instance (head bit, body), by stratum (what relaxed
        reachability reads)."""
        if self._full is None:
            self.close(self.task.facts.state(self.task.problem.init))
        assert self._full is not None
        groups: dict[int, list[tuple[int, Condition]]] = {}
        for b in _bits(self._full[1]):
            groups.setdefault(self.level[self.facts.atoms[b].pred], []).append(
                (b, self.body(b)[0]))
        return [groups[k] for k in sorted(groups)]

    def close_numeric(self, state: State, values: Mapping[FuncTerm, float],
                      holds: Holds) -> State:
        """Every derived atom of ``state`` computed afresh, for rules whose bodies
        compare numbers (lifted evaluation; raises
        :class:`veriplan.pddl.numeric.Undefined` as that does)."""
        state &= ~self._derived_bits
        by_level: dict[int, list[tuple[int, Formula, dict[str, str]]]] = {}
        for pred, rules in self.by_pred.items():
            for rule in rules:
                for sub in self.task._bindings(rule.params):
                    atom = Atom(pred, tuple(sub[p.name] for p in rule.params))
                    bit = self.facts.bit(atom)
                    self._derived_bits |= 1 << bit
                    by_level.setdefault(self.level[pred], []).append((bit, rule.body, sub))
        for k in sorted(by_level):
            pending = by_level[k]
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


class _Rules(dict):
    """``Axioms.rules``: a derived atom's rule instances, found on first look-up."""

    def __init__(self, axioms: Axioms) -> None:
        super().__init__()
        self._axioms = axioms

    def __missing__(self, atom: Atom) -> list:
        if atom.pred not in self._axioms.by_pred:
            raise KeyError(atom)
        hit = self[atom] = self._axioms.instances(atom)
        return hit

    def __contains__(self, atom: object) -> bool:
        return isinstance(atom, Atom) and atom.pred in self._axioms.by_pred


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


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
