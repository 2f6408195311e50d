"""SC, structural comprehension: the constraint set C from the PDDL domain and
problem alone: parameter constraints (types), required predicates, what each
action adds and deletes, dependency chains, mutual-exclusion hints and fact
landmarks with their orderings. Nothing here looks at what a name means or
sorts by name: everything follows the domain's declaration order and the
grounding order, so a renamed task gives the same constraints, in the same
order, under the renaming."""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations

from veriplan.core.atom import Literal as CoreLiteral
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


def comprehend(task: Task, *, deep: bool = True, applicable: bool = False) -> ConstraintSet:
    """C for ``task``; ``deep=False`` keeps types and arity only (the shallow
    ablation); ``applicable=True`` adds the ground actions applicable in the
    initial state (a partial search oracle, not the paper's C)."""
    sigs = signatures(task)
    first = _first_actions(task) if applicable else ()
    if not deep:
        shallow = tuple(ActionSignature(s.name, s.params, (), (), (), ()) for s in sigs)
        return ConstraintSet(shallow, first_actions=first, deep=False)
    producers: dict[str, list[str]] = defaultdict(list)
    consumers: dict[str, list[str]] = defaultdict(list)
    for a in task.domain.actions:
        pos, _ = _lits(a.precondition)
        for p in pos:
            if a.name not in consumers[p.pred]:
                consumers[p.pred].append(a.name)
        for e in a.effects:
            if isinstance(e, Literal) and e.positive and a.name not in producers[e.atom.pred]:
                producers[e.atom.pred].append(a.name)
    order = list(task.domain.predicates)
    init_preds = {a.pred for a in task.problem.init}
    deps = []
    for pred in order:
        makers = producers.get(pred, [])
        for user in consumers.get(pred, []):
            if not makers and pred not in init_preds:
                deps.append(f"{user} needs ({pred} ...), which no action adds and the "
                            "initial state lacks: it can never run")
            elif makers and pred not in init_preds:
                deps.append(f"{user} needs ({pred} ...), which only {', '.join(makers)} "
                            "adds: one of those must come first")
    landmarks, orderings = landmarks_of(task)
    return ConstraintSet(
        sigs, {p: tuple(producers[p]) for p in order if p in producers},
        {p: tuple(consumers[p]) for p in order if p in consumers}, tuple(deps),
        _mutexes(task), landmarks, orderings, first, True)


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
    init = {a.pred for a in task.problem.init}
    out = []
    for p, q in combinations(list(task.domain.predicates), 2):
        if not adds.get(p) or not adds.get(q) or (p in init and q in init):
            continue
        if all(q in d for d in adds[p]) and all(p in d for d in adds[q]):
            out.append((p, q))
    return tuple(out)


def atom_order(task: Task):
    """A sort key for atoms from declaration order alone (the predicate's place
    in the domain, then each argument's place among the task's objects): a
    renaming keeps it, while fact-index bits follow whatever the process
    interned first."""
    preds = {p: i for i, p in enumerate(task.domain.predicates)}
    objs = {o: i for i, o in enumerate(task.objects)}

    def key(atom) -> tuple:
        return (preds.get(atom.pred, len(preds)), tuple(objs.get(a, -1) for a in atom.args))
    return key


def ordered_bits(task: Task, state: int) -> list[int]:
    key = atom_order(task)
    atoms = task.facts.atoms
    return sorted(bits(state), key=lambda b: key(atoms[b]))


def ordered_parts(task: Task, parts) -> tuple:
    """Condition parts (literals, then any other part) in declaration order."""
    key = atom_order(task)
    lits = sorted((u for u in parts if isinstance(u, CoreLiteral)),
                  key=lambda u: (key(u.atom), not u.positive))
    return (*lits, *(u for u in parts if not isinstance(u, CoreLiteral)))


def landmarks_of(task: Task, targets: int | None = None, state: int | None = None
                 ) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Fact landmarks by back-chaining from ``targets`` (a bitset; default the
    goal's atoms) in ``state`` (default the initial state): a target not true
    in ``state`` is a landmark, and so is every fact all of a landmark's
    relaxed achievers need that is not true in ``state`` (it comes before
    that landmark). Returns the landmarks and the orderings (earlier, later)."""
    if task.numeric:  # no bitset operators to chain back through
        return (), ()
    if targets is None:
        goal = task.goal
        if not isinstance(goal, Conj):
            return (), ()
        targets = goal.pos
    state = task.init if state is None else state
    achievers: dict[int, list] = defaultdict(list)
    for op in task.ground():
        for b in bits(op.add):
            achievers[b].append(op)
    name = task.facts.name
    queue = [b for b in ordered_bits(task, targets) if not state >> b & 1]
    found: list[int] = list(queue)
    seen = set(queue)
    orderings: list[tuple[str, str]] = []
    while queue:
        b = queue.pop()
        ach = achievers.get(b, [])
        if not ach:
            continue
        shared = ach[0].pre_pos
        for op in ach[1:]:
            shared &= op.pre_pos
        for c in ordered_bits(task, shared):
            if state >> c & 1:
                continue
            orderings.append((name(c), name(b)))
            if c not in seen:
                seen.add(c)
                found.append(c)
                queue.append(c)
    return tuple(name(b) for b in found), tuple(orderings)


def _first_actions(task: Task, limit: int = 12) -> tuple[str, ...]:
    """Ground actions applicable in the initial state (see :func:`applicable_in`)."""
    return applicable_in(task, task.init, limit)


def applicable_in(task: Task, state: int, limit: int) -> tuple[str, ...]:
    """The first ``limit`` ground actions applicable in ``state``, sorted by their
    PDDL text. Grounding order depends on which tasks of the same domain were
    grounded before (they share the fact index), so it is not used: the prompt
    must not depend on what ran earlier in the process. None listed on a
    numeric task (veriplan grounds no operators over numbers)."""
    if task.numeric:
        return ()
    return tuple(sorted(str(op) for op, _ in task.successors(state))[:limit])


def possible_first(task: Task, c: ConstraintSet) -> tuple[str, ...]:
    """Actions each of whose required predicates holds of some objects in the
    initial state (lifted, from C: no ground action is tried)."""
    init_preds = {a.pred for a in task.problem.init}
    out = []
    for s in c.actions:
        preds = {n.strip("()").split()[0] for n in s.needs}
        if preds <= init_preds:
            out.append(s.name)
    return tuple(out)


def render(c: ConstraintSet, *, directives: bool = True) -> str:
    """C as prompt text: structure only, in the domain's own symbols; RC's
    directives last unless ``directives`` is false (LP's prompt shows them
    after the problem: :func:`render_directives`)."""
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
    if directives and c.directives:
        lines.append(render_directives(c))
    return "\n".join(lines)


def render_directives(c: ConstraintSet) -> str:
    """RC's latest directives (at most 6) as prompt text; "" when there are none."""
    if not c.directives:
        return ""
    return "\n".join(["Repair instructions from checking earlier plans:",
                      *(f"- {d}" for d in c.directives[-6:])])
