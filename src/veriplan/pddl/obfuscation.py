"""Obfuscation: a bijective renaming of actions, predicates and objects
(PlanBench "Mystery" style), with its inverse. Plan validity is invariant
under it: a plan is valid for a task exactly when its renaming is valid for
the renamed task."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from veriplan.core.atom import Atom, Literal
from veriplan.core.plan import Step
from veriplan.errors import VeriplanError
from veriplan.pddl.ast import (
    ActionSchema,
    And,
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
    Or,
    Problem,
    When,
)
from veriplan.pddl.task import Task

_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_RESERVED = {"and", "or", "not", "imply", "exists", "forall", "when", "either", "object",
             "increase", "define", "domain", "problem", "number", "total-cost"}


@dataclass(frozen=True)
class Renaming:
    """Old name -> new name for actions, predicates and objects (constants
    included). Names not in a table keep their name."""

    actions: Mapping[str, str] = field(default_factory=dict)
    predicates: Mapping[str, str] = field(default_factory=dict)
    objects: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for kind in ("actions", "predicates", "objects"):
            table = getattr(self, kind)
            values = list(table.values())
            if len(set(values)) != len(values):
                dup = next(v for v in values if values.count(v) > 1)
                raise VeriplanError(f"renaming of {kind} is not one-to-one: {dup!r} is the "
                                    "new name of two names")

    def inverse(self) -> Renaming:
        return Renaming({v: k for k, v in self.actions.items()},
                        {v: k for k, v in self.predicates.items()},
                        {v: k for k, v in self.objects.items()})

    def to_dict(self) -> dict[str, dict[str, str]]:
        return {"actions": dict(self.actions), "predicates": dict(self.predicates),
                "objects": dict(self.objects)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, str]]) -> Renaming:
        unknown = set(data) - {"actions", "predicates", "objects"}
        if unknown:
            raise VeriplanError(f"unknown renaming table(s) {sorted(unknown)}: use actions, "
                                "predicates and objects")
        return cls(**{k: {str(a).lower(): str(b).lower() for a, b in v.items()}
                      for k, v in data.items()})

    # ----- application ---------------------------------------------------------------
    def term(self, t: str) -> str:
        return t if t.startswith("?") else self.objects.get(t, t)

    def atom(self, a: Atom) -> Atom:
        return Atom(self.predicates.get(a.pred, a.pred), tuple(self.term(x) for x in a.args))

    def formula(self, f: Formula) -> Formula:
        if isinstance(f, Atom):
            return self.atom(f)
        if isinstance(f, Equals):
            return Equals(self.term(f.left), self.term(f.right))
        if isinstance(f, Not):
            return Not(self.formula(f.arg))
        if isinstance(f, And):
            return And(tuple(self.formula(p) for p in f.parts))
        if isinstance(f, Or):
            return Or(tuple(self.formula(p) for p in f.parts))
        if isinstance(f, Imply):
            return Imply(self.formula(f.lhs), self.formula(f.rhs))
        if isinstance(f, Exists):
            return Exists(f.params, self.formula(f.body))
        if isinstance(f, Forall):
            return Forall(f.params, self.formula(f.body))
        raise TypeError(f"not a formula: {f!r}")

    def effect(self, e: Effect) -> Effect:
        if isinstance(e, Literal):
            return Literal(self.atom(e.atom), e.positive)
        if isinstance(e, When):
            return When(self.formula(e.condition), tuple(self.effect(x) for x in e.effects))
        if isinstance(e, ForallEffect):
            return ForallEffect(e.params, tuple(self.effect(x) for x in e.effects))
        if isinstance(e, Increase) and isinstance(e.value, FuncTerm):
            return Increase(FuncTerm(e.value.name, tuple(self.term(a) for a in e.value.args)))
        return e

    def domain(self, d: Domain) -> Domain:
        if d.temporal:
            from veriplan.errors import UnsupportedRequirementError

            raise UnsupportedRequirementError(
                f"domain {d.name}: obfuscation renames STRIPS and ADL domains; one with "
                "durative actions (a temporal domain) is not supported: give it a "
                "domain of instantaneous actions", requirement=":durative-actions",
                file=d.file)
        if d.derived or d.numeric:
            from veriplan.errors import UnsupportedRequirementError

            raise UnsupportedRequirementError(
                f"domain {d.name}: obfuscation renames STRIPS and ADL domains; one with "
                "derived predicates or numeric fluents is not supported",
                requirement=":derived-predicates" if d.derived else ":numeric-fluents",
                file=d.file)
        actions = tuple(ActionSchema(self.actions.get(a.name, a.name), a.params,
                                     self.formula(a.precondition),
                                     tuple(self.effect(e) for e in a.effects))
                        for a in d.actions)
        return Domain(d.name, d.requirements, dict(d.types),
                      {self.term(c): t for c, t in d.constants.items()},
                      {self.predicates.get(p, p): ps for p, ps in d.predicates.items()},
                      dict(d.functions), actions, d.warnings, d.file,
                      tuple(self.term(c) for c in d.free_constants))

    def problem(self, p: Problem) -> Problem:
        numeric = {FuncTerm(f.name, tuple(self.term(a) for a in f.args)): v
                   for f, v in p.numeric_init.items()}
        return Problem(p.name, p.domain_name, {self.term(o): t for o, t in p.objects.items()},
                       tuple(self.atom(a) for a in p.init), numeric, self.formula(p.goal),
                       p.metric, p.warnings, p.file)

    def task(self, t: Task) -> Task:
        return Task(self.domain(t.domain), self.problem(t.problem))

    def step(self, s: Step) -> Step:
        return Step(self.actions.get(s.name, s.name), tuple(self.term(a) for a in s.args),
                    s.line)

    def plan(self, plan: Iterable[Step]) -> tuple[Step, ...]:
        return tuple(self.step(s) for s in plan)


def _words(rng: random.Random, n: int, taken: set[str]) -> list[str]:
    out: list[str] = []
    while len(out) < n:
        w = "".join(rng.choice(_CONSONANTS) + rng.choice(_VOWELS)
                    for _ in range(rng.randint(2, 3)))
        if rng.random() < 0.5:
            w += rng.choice(_CONSONANTS)
        if w not in taken and w not in _RESERVED:
            taken.add(w)
            out.append(w)
    return out


def random_renaming(task: Task, *, seed: int) -> Renaming:
    """A fresh seeded vocabulary of pronounceable nonsense words for every
    action, predicate and object of ``task`` (none equal to an existing name)."""
    rng = random.Random(seed)
    d = task.domain
    taken = {a.name for a in d.actions} | set(d.predicates) | set(task.objects) | set(d.types)
    actions = sorted(a.name for a in d.actions)
    preds = sorted(d.predicates)
    objs = sorted(task.objects)
    new = _words(rng, len(actions) + len(preds) + len(objs), taken)
    i, j = len(actions), len(actions) + len(preds)
    return Renaming(dict(zip(actions, new[:i])), dict(zip(preds, new[i:j])),
                    dict(zip(objs, new[j:])))


def obfuscate(task: Task, *, seed: int | None = None,
              renaming: Renaming | None = None) -> tuple[Task, Renaming]:
    """The renamed task and the renaming used (given, or drawn with ``seed``)."""
    if renaming is None:
        renaming = random_renaming(task, seed=0 if seed is None else seed)
    _check_bijective(task, renaming)
    return renaming.task(task), renaming


def _check_bijective(task: Task, r: Renaming) -> None:
    d = task.domain
    for kind, names in (("actions", [a.name for a in d.actions]),
                        ("predicates", list(d.predicates)), ("objects", list(task.objects))):
        table = getattr(r, kind)
        new = [table.get(n, n) for n in names]
        if len(set(new)) != len(new):
            clash = next(n for n in new if new.count(n) > 1)
            raise VeriplanError(f"renaming of {kind} merges two names into {clash!r}; "
                                "give every name a distinct new name")
