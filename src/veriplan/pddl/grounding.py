"""Reachability-based grounding.

The operators whose preconditions can hold under the delete relaxation are
found semi-naively: every newly reached fact is unified with each schema's
positive precondition atoms, and the rest of the schema's atoms are joined
against the facts reached so far through hash indexes on bound positions.
Bindings whose non-conjunctive precondition parts (or, exists, imply) fail
the relaxed test wait and are re-tested when the fact queue drains.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING

from veriplan.core.atom import Atom
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


class _Schema:
    """A schema's join plan: its usable positive precondition atoms."""

    def __init__(self, schema: ActionSchema) -> None:
        self.schema = schema
        params = {p.name for p in schema.params}
        self.atoms = [a for a in required_atoms(schema.precondition)
                      if all(x in params or not x.startswith("?") for x in a.args)]
        self.types = {p.name: p.type for p in schema.params}


def reachable_operators(task: Task) -> tuple[Operator, ...]:
    facts = task.facts
    store = _FactStore()
    reached = task.init
    queue: deque[Atom] = deque()
    for b in bits(reached):
        store.add(facts.atoms[b])
        queue.append(facts.atoms[b])
    schemas = [_Schema(s) for s in task.domain.actions]
    triggers: dict[str, list[tuple[_Schema, int]]] = {}
    for sc in schemas:
        for i, a in enumerate(sc.atoms):
            triggers.setdefault(a.pred, []).append((sc, i))
    found: dict[Key, Operator] = {}
    pending: dict[Key, Operator] = {}

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
        for args in _complete(task, sc, sub):
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
                                      sub, store, task):
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
          task: Task) -> Iterator[dict[str, str]]:
    if not rest:
        yield sub
        return
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
            yield from _join(sc, others, new, store, task)


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
