"""A PDDL task: a domain and a problem, with lazy instantiation of operators
(what the validator needs) and reachability-based grounding (what search needs).
"""

from __future__ import annotations

import _thread  # (threading.Lock is _thread.allocate_lock; threading costs start-up)
import os
import stat
import time
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import product
from typing import TYPE_CHECKING

from veriplan.core import condition as C
from veriplan.core.atom import Atom, Literal
from veriplan.core.condition import Condition
from veriplan.core.facts import FactIndex, State
from veriplan.core.operator import CondEffect, Operator
from veriplan.errors import (
    NumericTaskError,
    PDDLLenientWarning,
    PDDLSemanticError,
    TemporalTaskError,
)
from veriplan.pddl.ast import (
    OBJECT,
    ActionSchema,
    And,
    Compare,
    Domain,
    Effect,
    Equals,
    Exists,
    Forall,
    ForallEffect,
    Formula,
    FuncTerm,
    Imply,
    Increase,
    Not,
    NumericEffect,
    Or,
    Param,
    Problem,
    When,
    formula_uses_numbers,
)
from veriplan.pddl.inputs import DEFAULT_MAX_BYTES
from veriplan.pddl.parser import _read_text, parse_domain, read_domain, read_problem

if TYPE_CHECKING:  # (pathlib is not imported: a batch run does without its start-up)
    from pathlib import Path

    from veriplan.core.budget import Budget


class Task:
    """A PDDL planning task over int bitset states.

    It satisfies :class:`veriplan.core.system.TransitionSystem` (states are
    ints; actions are :class:`Operator`) through its reachable grounding.
    """

    def __init__(self, domain: Domain, problem: Problem) -> None:
        if problem.domain_name and problem.domain_name != domain.name:
            raise PDDLSemanticError(
                f"problem {problem.name} is for domain {problem.domain_name}, "
                f"not {domain.name}")
        self.domain = domain
        self.problem = problem
        self.objects: dict[str, str] = {**domain.constants, **problem.objects}
        missing = [c for c in domain.free_constants if c not in self.objects]
        if missing:
            raise PDDLSemanticError(
                f"domain {domain.name} uses undeclared constant(s) {', '.join(missing)}, "
                f"which problem {problem.name} does not declare as objects")
        shared = _shared_for(domain)
        self.schemas = shared.schemas
        self.uses_costs = shared.uses_costs
        self._templates = shared.templates
        self._shared_ops = shared.ops
        self._shared = shared
        self.facts = shared.facts
        #: numeric fluents beyond action costs: validated and simulated by
        #: veriplan.pddl.numeric's evaluation, not by the bitset operators
        self.numeric = domain.numeric or formula_uses_numbers(problem.goal)
        self.axioms = shared.axioms_for(self) if domain.derived else None
        #: the initial state's basic atoms (derived atoms are computed from them)
        self.base_init: State = self.facts.state(problem.init)
        self._init: State | None = self.base_init if self.axioms is None else None
        self._goal_c: Condition | None = None if self.numeric else self._goal(problem.goal)
        self._ops: dict[tuple[str, tuple[str, ...]], Operator] = {}
        # the steps of a numeric task found well-formed (veriplan.verify.numeric)
        self._numeric_ok: set[tuple[str, tuple[str, ...]]] = set()
        self._checked: dict[tuple[str, tuple[str, ...]], Operator] = {}

    @property
    def init(self) -> State:
        """The initial state; with derived predicates, every derived atom computed
        (grounded on first use: the validator asks only for the atoms it reads)."""
        if self._init is None:
            if self.numeric:  # (numeric rules are evaluated by the numeric validator)
                return self.base_init
            self._init = self.axioms.close(self.base_init)
        return self._init

    @init.setter
    def init(self, state: State) -> None:
        """Another initial state (of basic atoms; derived ones are computed)."""
        self.base_init = state
        self._init = state if self.axioms is None else None

    @property
    def goal(self) -> Condition:
        """The ground goal over bitset states (a classical task's only)."""
        if self._goal_c is None:
            raise self._numeric_error("a bitset goal test")
        return self._goal_c

    def _numeric_error(self, what: str) -> NumericTaskError:
        if self.domain.temporal or self.problem.timed_literals:
            return TemporalTaskError(
                f"task {self.name} is temporal (durative actions"
                f"{', timed initial literals' if self.problem.timed_literals else ''}): "
                f"veriplan validates its timed plans (validate, t: (action args) [d] "
                f"lines), but {what} needs a task of instantaneous actions; to plan for "
                "it, use a temporal planner such as OPTIC or TAMER (up-tamer) and "
                "validate its plans here")
        return NumericTaskError(
            f"task {self.name} has numeric fluents: veriplan validates and simulates its "
            f"plans (validate, simulate), but {what} needs a classical task (no numeric "
            "conditions or effects); to plan for it, use a numeric planner such as ENHSP")

    # ----- names and types ---------------------------------------------------------
    @cached_property
    def _by_type(self) -> dict[str, tuple[str, ...]]:
        out: dict[str, list[str]] = {}
        for obj, t in self.objects.items():
            for anc in self.domain.type_closure(t):
                out.setdefault(anc, []).append(obj)
        return {t: tuple(objs) for t, objs in out.items()}

    def objects_of_type(self, t: str) -> tuple[str, ...]:
        return self._by_type.get(t, ())

    def has_type(self, obj: str, t: str) -> bool:
        ot = self.objects.get(obj)
        return ot is not None and (t == OBJECT or self.domain.is_subtype(ot, t))

    @property
    def name(self) -> str:
        return f"{self.domain.name}/{self.problem.name}"

    def atoms(self, state: State) -> list[Atom]:
        return self.facts.decode(state)

    # ----- instantiation ---------------------------------------------------------------
    def checked_operator(self, name: str, args: tuple[str, ...]) -> Operator | None:
        """The operator of step ``(name args)`` if it was found well-formed for
        this task before (see :meth:`mark_checked`), else None.

        Only this task's own checks count: an operator shared with another task
        of the domain says nothing about this problem's objects and types."""
        return self._checked.get((name, args))

    def mark_checked(self, name: str, args: tuple[str, ...]) -> Operator:
        """Record that step ``(name args)`` passed :func:`veriplan.verify.check_step`
        for this task (names, arity, objects, types) and return its operator."""
        op = self._checked[(name, args)] = self.operator(name, args)
        return op

    def operator(self, name: str, args: tuple[str, ...]) -> Operator:
        """The ground operator ``(name args)``; the caller checks names, arity
        and types first (see :func:`veriplan.verify.check_step`).

        STRIPS schemas instantiate the same way in every problem of a domain, so
        their operators are shared by all tasks of the domain object."""
        key = (name, args)
        t = self._templates.get(name)
        if t is not None:
            op = self._shared_ops.get(key)
            if op is None:
                op = self._shared_ops[key] = self._instantiate_strips(t, name, args)
            return op
        op = self._ops.get(key)
        if op is None:
            op = self._ops[key] = self._instantiate(self.schemas[name], args)
        return op

    def _instantiate(self, schema: ActionSchema, args: tuple[str, ...]) -> Operator:
        sub = {p.name: a for p, a in zip(schema.params, args)}
        self._left = GROUND_LIMIT
        self._what = f"action {schema.name}"
        pre_cond = self._formula(schema.precondition, sub, True)
        if pre_cond is C.FALSE or (isinstance(pre_cond, C.Disj) and not pre_cond.parts):
            # Never applicable (e.g. (not (= ?x ?y)) with ?x = ?y): no effects to ground.
            return Operator(schema.name, args, 0, 0, 0, 0, (C.FALSE,), (), 0)
        pre = C.as_conj(pre_cond)
        add = delete = 0
        cost: float = 0 if self.uses_costs else 1
        conds: list[CondEffect] = []
        for cond, eff, esub in self._effects(schema.effects, sub, C.TRUE):
            if isinstance(eff, NumericEffect):
                raise self._numeric_error(f"a bitset operator of {schema.name}")
            if isinstance(eff, Increase):
                cost += self._cost_value(eff, esub)
                continue
            bit = 1 << self.facts.bit(_subst(eff.atom, esub))
            if cond is C.TRUE:
                if eff.positive:
                    add |= bit
                else:
                    delete |= bit
            elif cond is not C.FALSE:
                conds.append(CondEffect(C.as_conj(cond), bit if eff.positive else 0,
                                        0 if eff.positive else bit))
        return Operator(schema.name, args, pre.pos, pre.neg, add, delete, pre.parts,
                        tuple(conds), cost)

    def _instantiate_strips(self, t: _Template, name: str, args: tuple[str, ...]) -> Operator:
        for a, b, same in t.eq:
            if (_arg(a, args) == _arg(b, args)) != same:
                return Operator(name, args, 0, 0, 0, 0, (C.FALSE,), (), 0)
        known = self.facts._bit
        intern = self.facts.bit
        masks = []
        for group in (t.pre_pos, t.pre_neg, t.add, t.delete):
            m = 0
            for pred, slots in group:
                key = (pred, tuple([args[x] if x.__class__ is int else x for x in slots]))
                b = known.get(key)
                m |= 1 << (intern(key) if b is None else b)
            masks.append(m)
        pos, neg, add, delete = masks
        if pos & neg:
            return Operator(name, args, 0, 0, 0, 0, (C.FALSE,), (), 0)
        cost = t.cost if self.uses_costs else 1
        return Operator(name, args, pos, neg, add, delete, (), (), cost)

    def _cost_value(self, inc: Increase, sub: dict[str, str]) -> float:
        if not isinstance(inc.value, FuncTerm):
            return inc.value
        term = FuncTerm(inc.value.name, tuple(sub.get(a, a) for a in inc.value.args))
        try:
            return self.problem.numeric_init[term]
        except KeyError:
            args = " ".join((term.name, *term.args))
            raise PDDLSemanticError(
                f"action cost ({args}) has no value: add (= ({args}) N) to the problem's "
                ":init") from None

    def _effects(self, effects: tuple[Effect, ...], sub: dict[str, str],
                 cond: Condition
                 ) -> Iterator[tuple[Condition, Literal | Increase, dict[str, str]]]:
        """Flattened effects: (condition, lifted effect, its substitution)."""
        for e in effects:
            if isinstance(e, Literal | Increase | NumericEffect):
                yield cond, e, sub
            elif isinstance(e, When):
                inner = C.conj((cond, self._formula(e.condition, sub, True)))
                yield from self._effects(e.effects, sub, inner)
            elif isinstance(e, ForallEffect):
                for binding in self._counted(e.params):
                    yield from self._effects(e.effects, {**sub, **binding}, cond)

    def _bindings(self, params: tuple[Param, ...]) -> Iterator[dict[str, str]]:
        domains = [self.objects_of_type(p.type) for p in params]
        for values in product(*domains):
            yield {p.name: v for p, v in zip(params, values)}

    def _counted(self, params: tuple[Param, ...]) -> Iterator[dict[str, str]]:
        """:meth:`_bindings` of a quantifier, each counted against the grounding
        budget (:data:`GROUND_LIMIT`): nested quantifiers multiply, and a few dozen
        over two objects would take longer than the universe has."""
        for b in self._bindings(params):
            self._left -= 1
            if self._left < 0:
                raise PDDLSemanticError(
                    f"the quantifiers of {self._what} ground to more than "
                    f"{GROUND_LIMIT:,} instances (nested 'forall'/'exists' over "
                    f"{len(self.objects)} objects); veriplan refuses to ground it")
            yield b

    def condition(self, f: Formula, sub: dict[str, str]) -> Condition:
        """``f`` grounded under ``sub`` (within the grounding budget)."""
        self._left = GROUND_LIMIT
        self._what = "a condition"
        return self._formula(f, sub, True)

    def _goal(self, f: Formula) -> Condition:
        """The ground goal; a conjunction of atoms (the common case) directly."""
        if f.__class__ is And and all(p.__class__ is Atom for p in f.parts):
            return C.Conj(pos=self.facts.state(f.parts)) if f.parts else C.TRUE
        self._left = GROUND_LIMIT
        self._what = f"the goal of problem {self.problem.name}"
        return self._formula(f, {}, True)

    def _formula(self, f: Formula, sub: dict[str, str], positive: bool) -> Condition:
        """Ground ``f`` under ``sub`` into NNF (negated when ``positive`` is False)."""
        if isinstance(f, Atom):
            fold = self._fold
            if fold is not None and f.pred in fold:  # a static atom: its initial value
                holds = self.facts.bit(_subst(f, sub)) in fold[f.pred]
                return C.TRUE if holds == positive else C.FALSE
            return C.literal(self.facts.bit(_subst(f, sub)), positive)
        if isinstance(f, Not):
            return self._formula(f.arg, sub, not positive)
        if isinstance(f, And | Or):
            items = f.parts
            fold = self._fold
            if fold is not None and len(items) > 1:  # static atoms first: they decide most
                order = self._shared.static_first
                key = id(f)
                hit = order.get(key)
                if hit is None or hit[0] is not f:
                    hit = order[key] = (f, tuple(sorted(
                        items, key=lambda p: not (isinstance(p, Atom) and p.pred in fold))))
                items = hit[1]
            parts = (self._formula(p, sub, positive) for p in items)
            return C.conj(parts) if isinstance(f, And) == positive else C.disj(parts)
        if isinstance(f, Equals):
            same = sub.get(f.left, f.left) == sub.get(f.right, f.right)
            return C.TRUE if same == positive else C.FALSE
        if isinstance(f, Imply):
            lhs = self._formula(f.lhs, sub, not positive)
            rhs = self._formula(f.rhs, sub, positive)
            return C.disj((lhs, rhs)) if positive else C.conj((lhs, rhs))
        if isinstance(f, Exists | Forall):
            parts = (self._formula(f.body, {**sub, **b}, positive)
                     for b in self._counted(f.params))
            return C.disj(parts) if isinstance(f, Exists) == positive else C.conj(parts)
        if isinstance(f, Compare):
            raise self._numeric_error("grounding a numeric comparison into a bitset "
                                      "condition")
        raise TypeError(f"not a formula: {f!r}")

    # ----- transition system ---------------------------------------------------------------
    def initial_state(self) -> State:
        return self.init

    def is_goal(self, state: State) -> bool:
        return self.goal.holds(state)

    def successors(self, state: State) -> Iterator[tuple[Operator, State]]:
        close = self.axioms.close if self.axioms is not None else None
        for op in self.ground():
            if op.applicable(state):
                nxt = op.apply(state)
                yield op, close(nxt) if close is not None else nxt

    def apply(self, op: Operator, state: State) -> State:
        """The state after ``op`` in ``state``, derived predicates brought up to date."""
        nxt = op.apply(state)
        return self.axioms.close(nxt) if self.axioms is not None else nxt

    def action_cost(self, op: Operator) -> float:
        return op.cost

    def ground(self, budget: Budget | None = None) -> tuple[Operator, ...]:
        """All operators reachable under the delete relaxation (cached), found
        within ``budget`` (else :class:`~veriplan.core.budget.BudgetExceeded`)."""
        if self._ground is None:
            if self.numeric:
                raise self._numeric_error("grounding for search")
            from veriplan.pddl.grounding import reachable_operators

            self._ground = reachable_operators(self, budget)
        return self._ground

    _ground: tuple[Operator, ...] | None = None
    # veriplan.verify.batch's memo: the text of a clean step, "stack a b", to its
    # operator once the step was found well-formed for this task.
    _by_text: dict[str, Operator] | None = None
    _left = 0  # the grounding budget left (see _counted)
    _what = ""
    # while derived rules are ground: static predicate -> the bits of its initial atoms
    _fold: dict[str, set[int]] | None = None

    def static_predicates(self) -> frozenset[str]:
        """The predicates no action changes and no rule derives."""
        changed: set[str] = {r.pred for r in self.domain.derived}

        def walk(effects) -> None:
            for e in effects:
                if isinstance(e, Literal):
                    changed.add(e.atom.pred)
                elif isinstance(e, When | ForallEffect):
                    walk(e.effects)

        for a in self.domain.actions:
            walk(a.effects)
        return frozenset(self.domain.predicates) - changed

    def condition_folded(self, f: Formula, sub: dict[str, str]) -> Condition:
        """:meth:`condition` with static atoms replaced by their initial values (the
        ground bodies of derived rules: far smaller, and the same in every state)."""
        fold = self.__dict__.get("_static_bits")
        if fold is None:
            fold = {p: set() for p in self.static_predicates()}
            for a in self.problem.init:
                if a.pred in fold:
                    fold[a.pred].add(self.facts.bit(a))
            self._static_bits = fold
        self._fold = fold
        return self.condition(f, sub)


#: The most quantifier instances grounding one precondition, effect or goal may make.
GROUND_LIMIT = 2_000_000

Slot = int | str  # a parameter position, or a constant


@dataclass(frozen=True, slots=True)
class _Template:
    """A STRIPS schema (conjunctive literal precondition, equality tests, plain
    add/delete effects, constant cost) compiled for fast instantiation."""

    pre_pos: tuple[tuple[str, tuple[Slot, ...]], ...]
    pre_neg: tuple[tuple[str, tuple[Slot, ...]], ...]
    add: tuple[tuple[str, tuple[Slot, ...]], ...]
    delete: tuple[tuple[str, tuple[Slot, ...]], ...]
    eq: tuple[tuple[Slot, Slot, bool], ...]
    cost: float


def _arg(slot: Slot, args: tuple[str, ...]) -> str:
    return args[slot] if slot.__class__ is int else slot  # type: ignore[index,return-value]


def _compile(schema: ActionSchema) -> _Template | None:
    index = {p.name: i for i, p in enumerate(schema.params)}

    def slots(terms: tuple[str, ...]) -> tuple[Slot, ...]:
        return tuple(index.get(x, x) for x in terms)

    pos, neg, eq = [], [], []
    stack = [schema.precondition]
    while stack:
        f = stack.pop()
        if isinstance(f, And):
            stack.extend(f.parts)
        elif isinstance(f, Atom):
            pos.append((f.pred, slots(f.args)))
        elif isinstance(f, Not) and isinstance(f.arg, Atom):
            neg.append((f.arg.pred, slots(f.arg.args)))
        elif isinstance(f, Equals | Not) and isinstance(getattr(f, "arg", f), Equals):
            e = f.arg if isinstance(f, Not) else f
            eq.append((index.get(e.left, e.left), index.get(e.right, e.right),
                       not isinstance(f, Not)))
        else:
            return None
    add, delete = [], []
    cost: float = 0
    for e in schema.effects:
        if isinstance(e, Literal):
            (add if e.positive else delete).append((e.atom.pred, slots(e.atom.args)))
        elif isinstance(e, Increase) and not isinstance(e.value, FuncTerm):
            cost += e.value
        else:
            return None
    return _Template(tuple(pos), tuple(neg), tuple(add), tuple(delete), tuple(eq), cost)


class _Shared:
    """What all tasks of one domain object share: compiled STRIPS schemas, the
    fact index (atoms are interned once per domain, so bit positions agree
    across its problems) and the STRIPS operators instantiated so far."""

    MAX_FACTS = 200_000  # past this many atoms, start afresh (bitsets stay small)

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.schemas = {a.name: a for a in domain.actions}
        self.templates = {a.name: t for a in domain.actions if (t := _compile(a)) is not None}
        self.uses_costs = any(isinstance(e, Increase) for a in domain.actions
                              for e in a.effects)
        self.facts = FactIndex()
        self.ops: dict[tuple[str, tuple[str, ...]], Operator] = {}
        # veriplan.verify.batch's memo for an untyped domain: the text of a clean
        # step, "stack a b", to its STRIPS operator (of ops), for any task whose
        # objects hold its arguments.
        self.by_text: dict[str, Operator] = {}
        # and its memo of how a step's false preconditions are told, by the literals
        self.failures: dict[tuple, tuple[str, ...]] = {}
        # a formula's parts with its static atoms first (derived rules' grounding),
        # by the formula's id (the formula kept beside it: ids are reused)
        self.static_first: dict[int, tuple[object, tuple]] = {}

    def axioms_for(self, task: Task):
        """The derived predicates' rules ground for ``task`` (see veriplan.pddl.derived)."""
        from veriplan.pddl.derived import Axioms

        return Axioms(task)


_SHARED: dict[int, _Shared] = {}
_SHARED_LOCK = _thread.allocate_lock()


def _shared_for(domain: Domain) -> _Shared:
    hit = _SHARED.get(id(domain))
    if hit is not None and hit.domain is domain and len(hit.facts) < _Shared.MAX_FACTS:
        return hit
    with _SHARED_LOCK:
        if len(_SHARED) >= 64:
            _SHARED.clear()
        shared = _SHARED[id(domain)] = _Shared(domain)
    return shared


def _subst(atom: Atom, sub: dict[str, str]) -> Atom:
    if not sub:
        return atom
    return Atom(atom.pred, tuple([sub.get(a, a) for a in atom.args]))


def load_task(domain_path: str | Path, problem_path: str | Path, *,
              strict: bool = True, max_bytes: int | None = None) -> Task:
    """Read a domain and a problem file into a :class:`Task`.

    The parsed domain is cached by file identity (see :func:`cached_domain`),
    so tasks loaded from one unchanged domain file share its domain object and
    with it the fact index and the STRIPS operators instantiated so far; the
    problem file is read every time. Each file may hold at most ``max_bytes``
    (default :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`)."""
    domain = cached_domain(domain_path, strict=strict, max_bytes=max_bytes)
    return Task(domain, read_problem(problem_path, domain, strict=strict, max_bytes=max_bytes))


class _DomainCache:
    """Parsed domains by file identity: the path as given, the file's device and
    inode, size, modification time (ns) and strictness. A file changed in place
    or replaced gets a new identity and is read again; least recently used
    entries beyond ``size`` are dropped.

    A file modified within the file system's timestamp resolution of the
    moment it was read could keep its size and mtime. As git does for its
    index, such a *racy* entry keeps the text it was parsed from and is served
    only while the file still holds that text; once it has been confirmed
    :data:`RACY_NS` after its mtime, any later write must show in the mtime
    and the text is dropped.

    Thread-safe: a miss parses outside the lock; when two threads parse the
    same file at once, the first domain stored is the one both get."""

    RACY_NS = 2_000_000_000  # coarser than any timestamp resolution in use (FAT: 2 s)

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._lock = _thread.allocate_lock()
        # key -> [domain, source text while the entry is racy, else None]
        self._entries: OrderedDict[tuple, list] = OrderedDict()

    def get(self, path: str | Path, strict: bool, max_bytes: int | None = None) -> Domain:
        now = time.time_ns()
        try:
            st = os.stat(path)
        except (OSError, TypeError, ValueError):
            return read_domain(path, strict=strict)  # raises the located read error
        limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
        if st.st_size > limit or not stat.S_ISREG(st.st_mode):
            return read_domain(path, strict=strict, max_bytes=limit)  # raises the read error
        key = (os.fspath(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, strict)
        racy = now - st.st_mtime_ns < self.RACY_NS
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                domain, source = entry
        if entry is not None and (source is None or _read_text(path) == source):
            if source is not None and not racy:
                entry[1] = None  # confirmed after the racy window
            for text in domain.warnings:  # a lenient load warns every time
                warnings.warn(text, PDDLLenientWarning, stacklevel=4)
            return domain
        source = _read_text(path)  # after the stat: a later write changes the key
        domain = parse_domain(source, file=str(path), strict=strict)
        with self._lock:
            old = self._entries.get(key)
            if old is not None and old[1] in (None, source):
                domain = old[0]  # another thread stored the same file first
            else:
                self._entries[key] = [domain, source if racy else None]
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return domain

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_DOMAINS = _DomainCache()


def cached_domain(path: str | Path, *, strict: bool = True,
                  max_bytes: int | None = None) -> Domain:
    """The parsed domain file at ``path``, from the cache when the file is
    unchanged (same path, inode, size and mtime; a file written in the last
    two seconds is also compared by content) and read with the same
    strictness, else read and cached (64 domains at most). A domain read
    leniently emits its lenient warnings (``PDDLLenientWarning``) on every
    call, cached or not, as reading the file again would. A file over
    ``max_bytes`` (default :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`) or
    not a regular file is refused (:class:`~veriplan.errors.PDDLInputFileError`)."""
    return _DOMAINS.get(path, strict, max_bytes)


def clear_domain_cache() -> None:
    """Forget every cached domain (tasks built from them keep working)."""
    _DOMAINS.clear()
