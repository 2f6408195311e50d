"""SC, structural comprehension: the constraint set C from the PDDL domain and
problem alone. Nothing here looks at what a name means; a renamed task gives
the same constraints under the renaming."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from veriplan.core.condition import Conj, bits
from veriplan.methods.closed_loop.contracts import ActionSignature, ConstraintSet
from veriplan.pddl.ast import And, Atom, Formula, Literal, Not
from veriplan.pddl.task import Task


def _lits(f: Formula) -> tuple[list[Atom], list[Atom]]:
    pos, neg = [], []
    stack = [f]
    while stack:
        g = stack.pop()
        if isinstance(g, And):
            stack.extend(reversed(g.parts))
        elif isinstance(g, Atom):
            pos.append(g)
        elif isinstance(g, Not) and isinstance(g.arg, Atom):
            neg.append(g.arg)
    return pos, neg


def signatures(task: Task) -> tuple[ActionSignature, ...]:
    out = []
    for a in task.domain.actions:
        pos, neg = _lits(a.precondition)
        adds = [str(e.atom) for e in a.effects if isinstance(e, Literal) and e.positive]
        dels = [str(e.atom) for e in a.effects if isinstance(e, Literal) and not e.positive]
        out.append(ActionSignature(a.name, tuple((p.name, p.type) for p in a.params),
                                   tuple(map(str, pos)), tuple(map(str, neg)), tuple(adds),
                                   tuple(dels)))
    return tuple(out)


def comprehend(task: Task, *, deep: bool = True) -> ConstraintSet:
    sigs = signatures(task)
    if not deep:
        shallow = tuple(ActionSignature(s.name, s.params, (), (), (), ()) for s in sigs)
        return ConstraintSet(shallow, deep=False)
    producers: dict[str, set[str]] = defaultdict(set)
    consumers: dict[str, set[str]] = defaultdict(set)
    for a in task.domain.actions:
        pos, _ = _lits(a.precondition)
        for p in pos:
            consumers[p.pred].add(a.name)
        for e in a.effects:
            if isinstance(e, Literal) and e.positive:
                producers[e.atom.pred].add(a.name)
    init_preds = {a.pred for a in task.problem.init}
    deps = []
    for pred, users in sorted(consumers.items()):
        makers = sorted(producers.get(pred, ()))
        for user in sorted(users):
            if not makers and pred not in init_preds:
                deps.append(f"{user} needs ({pred} ...), which no action adds and the "
                            "initial state lacks: it can never run")
            elif makers and pred not in init_preds:
                deps.append(f"{user} needs ({pred} ...), which only {', '.join(makers)} "
                            "adds: one of those must come first")
    return ConstraintSet(
        sigs, {k: tuple(sorted(v)) for k, v in producers.items()},
        {k: tuple(sorted(v)) for k, v in consumers.items()}, tuple(deps),
        _mutexes(task), *_landmarks(task), _first_actions(task), True)


def _mutexes(task: Task) -> tuple[tuple[str, str], ...]:
    """Lifted predicate pairs (P, Q) such that every action adding one deletes
    the other (same arguments where they overlap) and no initial state holds
    both: then no reachable state holds both."""
    adds: dict[str, list] = defaultdict(list)
    for a in task.domain.actions:
        effects = [e for e in a.effects if isinstance(e, Literal)]
        for e in effects:
            if e.positive:
                adds[e.atom.pred].append({x.atom.pred for x in effects if not x.positive})
    preds = sorted(task.domain.predicates)
    init = {a.pred for a in task.problem.init}
    out = []
    for p, q in combinations(preds, 2):
        if not adds.get(p) or not adds.get(q) or (p in init and q in init):
            continue
        if all(q in d for d in adds[p]) and all(p in d for d in adds[q]):
            out.append((p, q))
    return tuple(out)


def _landmarks(task: Task) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Fact landmarks by back-chaining from the goal: a fact every relaxed
    achiever of a landmark needs is a landmark too (and comes before it)."""
    goal = task.goal
    if not isinstance(goal, Conj):
        return (), ()
    ops = task.ground()
    achievers: dict[int, list] = defaultdict(list)
    for op in ops:
        for b in bits(op.add):
            achievers[b].append(op)
    init = task.init
    name = task.facts.name
    found: list[int] = []
    orderings: list[tuple[str, str]] = []
    queue = [b for b in bits(goal.pos) if not init >> b & 1]
    seen = set(queue)
    found.extend(queue)
    while queue:
        b = queue.pop()
        ach = achievers.get(b, [])
        if not ach:
            continue
        shared = ach[0].pre_pos
        for op in ach[1:]:
            shared &= op.pre_pos
        for c in bits(shared):
            if init >> c & 1:
                continue
            orderings.append((name(c), name(b)))
            if c not in seen:
                seen.add(c)
                found.append(c)
                queue.append(c)
    return tuple(name(b) for b in found), tuple(orderings)


def _first_actions(task: Task, limit: int = 12) -> tuple[str, ...]:
    acts = [str(op) for op, _ in task.successors(task.init)]
    return tuple(sorted(acts)[:limit])


def render(c: ConstraintSet) -> str:
    """C as prompt text: structure only, in the domain's own symbols."""
    lines = ["Actions (parameters; what must hold; what becomes true; what becomes false):"]
    for s in c.actions:
        params = " ".join(f"{n} - {t}" for n, t in s.params) or "none"
        if c.deep:
            needs = ", ".join([*s.needs, *(f"(not {x})" for x in s.needs_false)]) or "nothing"
            lines.append(f"- {s.name} ({params}): needs {needs}; adds "
                         f"{', '.join(s.adds) or 'nothing'}; deletes "
                         f"{', '.join(s.deletes) or 'nothing'}")
        else:
            lines.append(f"- {s.name} ({params}): takes {len(s.params)} argument(s)")
    if c.dependencies:
        lines.append("Dependencies:")
        lines += [f"- {d}" for d in c.dependencies]
    if c.mutexes:
        lines.append("Never true at the same time: " + "; ".join(
            f"({p} ...) and ({q} ...)" for p, q in c.mutexes))
    if c.landmarks:
        lines.append("Facts every plan must make true at some point: " + ", ".join(c.landmarks))
    if c.orderings:
        lines.append("Orderings (left before right): " + "; ".join(
            f"{a} before {b}" for a, b in c.orderings[:12]))
    if c.first_actions:
        lines.append("Actions possible in the initial state: " + ", ".join(c.first_actions))
    if c.directives:
        lines.append("Repair instructions from checking earlier plans:")
        lines += [f"- {d}" for d in c.directives[-6:]]
    return "\n".join(lines)
