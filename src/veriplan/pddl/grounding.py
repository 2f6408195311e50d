"""Reachability-based grounding.

The operators whose preconditions can hold under the delete relaxation are
found semi-naively: every newly reached fact is unified with each schema's
positive precondition atoms, and the rest of the schema's atoms are joined
against the facts reached so far through hash indexes on bound positions.
Bindings whose non-conjunctive precondition parts (or, exists, imply) fail
the relaxed test wait and are re-tested when the fact queue drains.

The work is under a :class:`~veriplan.core.budget.Budget`: every few hundred
bindings or joins the clock (and the cancel flag) is read and the ground
actions held are counted; over any of them grounding stops with a
:class:`~veriplan.core.budget.BudgetExceeded` that names the largest schema,
and the operators it interned into the domain's shared cache are dropped.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator, Sized
from typing import TYPE_CHECKING

from veriplan.core.atom import Atom
from veriplan.core.budget import Budget, BudgetExceeded, BudgetLimit
from veriplan.core.condition import bits
from veriplan.core.operator import Operator
from veriplan.pddl.ast import ActionSchema, And, Formula

if TYPE_CHECKING:
    from veriplan.pddl.task import Task

Key = tuple[str, tuple[str, ...]]


def required_atoms(f: Formula) -> list[Atom]:
    """Positive atoms in the top-level conjunction of ``f`` (variables free)."""
    if isinstance(f, Atom):
        return [f]
    if isinstance(f, And):
        return [a for p in f.parts for a in required_atoms(p)]
    return []


class _FactStore:
    """Reached facts with lazily built indexes on (predicate, bound positions)."""

    def __init__(self) -> None:
        self.by_pred: dict[str, list[tuple[str, ...]]] = {}
        self.indexes: dict[tuple[str, tuple[int, ...]], dict[tuple, list]] = {}

    def add(self, atom: Atom) -> None:
        self.by_pred.setdefault(atom.pred, []).append(atom.args)
        for (pred, pos), idx in self.indexes.items():
            if pred == atom.pred:
                idx.setdefault(tuple(atom.args[i] for i in pos), []).append(atom.args)

    def matching(self, pred: str, pos: tuple[int, ...], key: tuple) -> list[tuple[str, ...]]:
        if not pos:
            return self.by_pred.get(pred, [])
        idx = self.indexes.get((pred, pos))
        if idx is None:
            idx = self.indexes[(pred, pos)] = {}
            for args in self.by_pred.get(pred, ()):
                idx.setdefault(tuple(args[i] for i in pos), []).append(args)
        return idx.get(key, [])


#: Work between two reads of the budget: a binding of a STRIPS schema counts 1,
#: one of an ADL schema (quantifiers to expand) :data:`CHECK_EVERY`, a join 1.
CHECK_EVERY = 512


class _Schema:
    """A schema's join plan: its usable positive precondition atoms."""

    def __init__(self, schema: ActionSchema, strips: bool) -> None:
        self.schema = schema
        params = {p.name for p in schema.params}
        self.atoms = [a for a in required_atoms(schema.precondition)
                      if all(x in params or not x.startswith("?") for x in a.args)]
        self.types = {p.name: p.type for p in schema.params}
        #: how much one binding counts against :data:`CHECK_EVERY`
        self.weight = 1 if strips else CHECK_EVERY


class _Gauge:
    """The grounding's reads of its budget, every :data:`CHECK_EVERY` units of work."""

    __slots__ = ("held", "left", "meter", "task")

    def __init__(self, task: Task, budget: Budget, held: tuple[Sized, ...]) -> None:
        self.task = task
        self.meter = budget.clock()
        self.held = held  # the ground actions found and pending
        self.left = CHECK_EVERY

    def check(self) -> None:
        """Raise :class:`BudgetExceeded` when over the budget (``left`` is reset)."""
        self.left = CHECK_EVERY
        budget = self.meter.budget
        held = sum(len(h) for h in self.held)
        limit = self.meter.over_time()
        if limit is None and budget.max_ground_actions is not None \
                and held > budget.max_ground_actions:
            limit = BudgetLimit.GROUND_ACTIONS
        if limit is not None:
            raise BudgetExceeded(_over_message(self.task, budget, limit, held), limit)


def _over_message(task: Task, budget: Budget, limit: BudgetLimit, held: int) -> str:
    biggest, size = "", 0
    for a in task.domain.actions:
        n = math.prod(len(task.objects_of_type(p.type)) for p in a.params)
        if n > size:
            biggest, size = a.name, n
    what = (f" (action {biggest} has up to {size:.3g} bindings of its parameters over "
            f"{len(task.objects)} objects)" if size > 10 * held else "")
    fix = ("run it again when the caller waits" if limit is BudgetLimit.CANCELLED else
           "give it a larger budget (more time: --time-limit / time_limit, or a larger "
           "max_ground_actions), or a task with fewer objects or action parameters")
    return (f"grounding task {task.name} stopped over its budget: {budget.describe(limit)}, "
            f"after {held:,} ground actions{what}; {fix}")


def reachable_operators(task: Task, budget: Budget | None = None) -> tuple[Operator, ...]:
    """Every operator reachable under the delete relaxation, within ``budget``
    (its default: no time limit, :data:`~veriplan.core.budget.MAX_GROUND_ACTIONS`)."""
    shared, own = task._shared_ops, task._ops
    before = len(shared), len(own)
    try:
        return _reachable(task, Budget() if budget is None else budget)
    except BudgetExceeded:
        # the memory goes back: the operators interned for this grounding are dropped
        # again (the latest entries; another thread's, if any, are only a cache miss)
        for cache, n in zip((shared, own), before):
            for _ in range(len(cache) - n):
                cache.popitem()
        raise


def _reachable(task: Task, budget: Budget) -> tuple[Operator, ...]:
    facts = task.facts
    store = _FactStore()
    reached = task.init
    queue: deque[Atom] = deque()
    for b in bits(reached):
        store.add(facts.atoms[b])
        queue.append(facts.atoms[b])
    schemas = [_Schema(s, s.name in task._templates) for s in task.domain.actions]
    triggers: dict[str, list[tuple[_Schema, int]]] = {}
    for sc in schemas:
        for i, a in enumerate(sc.atoms):
            triggers.setdefault(a.pred, []).append((sc, i))
    found: dict[Key, Operator] = {}
    pending: dict[Key, Operator] = {}
    gauge = _Gauge(task, budget, (found, pending))

    def accept(key: Key, op: Operator) -> None:
        nonlocal reached
        found[key] = op
        adds = op.add
        for ce in op.cond_effects:
            adds |= ce.add  # conditions may hold later: over-approximate
        new = adds & ~reached
        if new:
            reached |= new
            for b in bits(new):
                store.add(facts.atoms[b])
                queue.append(facts.atoms[b])

    def consider(sc: _Schema, sub: dict[str, str]) -> None:
        weight = sc.weight
        for args in _complete(task, sc, sub):
            gauge.left -= weight
            if gauge.left <= 0:
                gauge.check()
            key = (sc.schema.name, args)
            if key in found or key in pending:
                continue
            op = task.operator(*key)
            if op.precondition.relaxed_holds(reached):
                accept(key, op)
            else:
                pending[key] = op

    for sc in schemas:
        if not sc.atoms:
            consider(sc, {})
    while True:
        while queue:
            atom = queue.popleft()
            for sc, i in triggers.get(atom.pred, ()):
                sub = _unify(sc, sc.atoms[i], atom.args, {}, task)
                if sub is not None:
                    for full in _join(sc, [a for j, a in enumerate(sc.atoms) if j != i],
                                      sub, store, task, gauge):
                        consider(sc, full)
        if task.axioms is not None:  # derived atoms whose rules hold, relaxed
            for rules in task.axioms.strata:
                for bit, body in rules:
                    if not reached >> bit & 1 and body.relaxed_holds(reached):
                        reached |= 1 << bit
                        store.add(facts.atoms[bit])
                        queue.append(facts.atoms[bit])
            if queue:
                continue
        ready = [k for k, op in pending.items() if op.precondition.relaxed_holds(reached)]
        if not ready:
            break
        for k in ready:
            accept(k, pending.pop(k))
    return tuple(found.values())


def _unify(sc: _Schema, template: Atom, values: tuple[str, ...], sub: dict[str, str],
           task: Task) -> dict[str, str] | None:
    new = dict(sub)
    for x, v in zip(template.args, values):
        if x.startswith("?"):
            if new.setdefault(x, v) != v:
                return None
            if x not in sub and not task.has_type(v, sc.types[x]):
                return None
        elif x != v:
            return None
    return new


def _join(sc: _Schema, rest: list[Atom], sub: dict[str, str], store: _FactStore,
          task: Task, gauge: _Gauge) -> Iterator[dict[str, str]]:
    if not rest:
        yield sub
        return
    gauge.left -= 1  # (joins that fail deep down never reach a binding: counted here)
    if gauge.left <= 0:
        gauge.check()
    # Most bound arguments first.
    best = max(range(len(rest)), key=lambda j: sum(
        1 for x in rest[j].args if not x.startswith("?") or x in sub))
    atom = rest[best]
    others = rest[:best] + rest[best + 1:]
    pos = tuple(i for i, x in enumerate(atom.args) if not x.startswith("?") or x in sub)
    key = tuple(sub.get(atom.args[i], atom.args[i]) for i in pos)
    for values in list(store.matching(atom.pred, pos, key)):
        new = _unify(sc, atom, values, sub, task)
        if new is not None:
            yield from _join(sc, others, new, store, task, gauge)


def _complete(task: Task, sc: _Schema, sub: dict[str, str]) -> Iterator[tuple[str, ...]]:
    """Bind the parameters no required atom mentions to every object of their type."""
    params = sc.schema.params
    free = tuple(p for p in params if p.name not in sub)
    if not free:
        yield tuple(sub[p.name] for p in params)
        return
    for b in task._bindings(free):
        full = {**sub, **b}
        yield tuple(full[p.name] for p in params)
