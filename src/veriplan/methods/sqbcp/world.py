"""The state w = (r, s, l, t), typed effects and their morphisms (Eq. 2), the
labels SAT / VIOL / UNK, and the distance D (Eq. 1) with its screens (Eq. 5).

``l`` holds only what is grounded: facts the prompt states, the oracle's
answers and the effects of steps already in the chain. A fact absent from
``l`` is unknown, never false (the tasks hide preconditions, so the closed-world
assumption does not hold).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from veriplan.domains.hidden.task import atom_key, names_outside, tokens

_CUT = ("with", "without", "from", "in", "on", "into", "for", "to", "by", "using", "and", "at")


def head(name: str) -> str:
    """The head noun of a name: its last content word before a preposition
    ("buttermilk pancakes" -> "pancake", "spaghetti with tomato sauce" ->
    "spaghetti", "toy car" -> "car"), singular."""
    low = name.lower().split()
    for i, w in enumerate(low):
        if i and w in _CUT:
            low = low[:i]
            break
    t = tokens(" ".join(low))
    return t[-1] if t else ""


def makes(resource: str, product: str) -> bool:
    """Whether a resource the chain produced is the product r*: the same head
    noun ("pancakes" and "cooked pancakes" are "buttermilk pancakes"; "pancake
    batter" is not)."""
    h = head(product)
    return bool(h) and (resource.lower() == product.lower() or head(resource) == h)

GOAL = "goal reached"  # the goal predicate of the natural-language families

SAT, VIOL, UNK = "SAT", "VIOL", "UNK"


def key(text: str) -> str:
    """A fact's key: a PDDL atom normalised, else the text lower-cased."""
    return atom_key(text) or " ".join(text.lower().split())


@dataclass(frozen=True)
class Effects:
    """Typed effects: resource deltas, the new symbolic structure (None keeps
    it), facts set true or false, seconds taken."""

    dr: Mapping[str, int] = field(default_factory=dict)
    s: str | None = None
    dl: Mapping[str, bool] = field(default_factory=dict)
    dt: float = 0.0

    def then(self, other: Effects) -> Effects:
        """The effects of doing ``self`` and then ``other`` (composition)."""
        dr = dict(self.dr)
        for k, v in other.dr.items():
            dr[k] = dr.get(k, 0) + v
        return Effects({k: v for k, v in dr.items() if v}, other.s or self.s,
                       {**self.dl, **other.dl}, self.dt + other.dt)

    def summary(self) -> str:
        parts = [f"{k}{v:+d}" for k, v in sorted(self.dr.items())]
        parts += [("" if v else "not ") + k for k, v in sorted(self.dl.items())]
        return "; ".join(parts) + f"; {self.dt:g}s"


@dataclass(frozen=True)
class World:
    r: Mapping[str, int]
    s: str
    l: Mapping[str, bool]  # noqa: E741 (the paper's name)
    t: float = 0.0
    budget: float | None = None

    def apply(self, e: Effects) -> World:
        """The morphism: r + dr, s' = f(s), l with the changed facts set (the
        XOR of Eq. 2 on the facts whose value changes), t + dt."""
        r = dict(self.r)
        for k, v in e.dr.items():
            if k not in r:
                # An amount the chain has not produced: a resource known to be at hand
                # (stated or answered) is taken to cover what the step uses (the tasks
                # give no quantities); anything else starts at zero, so using it fails
                # the hard check.
                r[k] = -v if v < 0 and self.value(k, k) is True else 0
            r[k] = r[k] + v
        l = dict(self.l)  # noqa: E741 (the paper's name)
        for k, v in e.dl.items():
            l[key(k)] = v
        return World(r, e.s if e.s is not None else self.s, l, self.t + e.dt, self.budget)

    def amount(self, name: str) -> int:
        """How much of ``name`` the state holds: the resource itself, else
        the resources the chain produced that are it (:func:`makes`)."""
        if name in self.r:
            return self.r[name]
        return sum(n for k, n in self.r.items() if n > 0 and makes(k, name))

    def with_facts(self, facts: Mapping[str, bool]) -> World:
        return World(self.r, self.s, {**self.l, **{key(k): v for k, v in facts.items()}},
                     self.t, self.budget)

    def value(self, text: str, subject: str | None = None) -> bool | None:
        """True/False when grounded, None when unknown. A PDDL atom is looked
        up exactly; a statement matches the same statement (the same content
        words in the same order: "the batter is ready" is "batter is ready"),
        else a grounded fact or a resource the chain produced that names its
        subject, by the resource decider's rule (:func:`names_outside`) with
        every name the state holds as a longer name. So a fact names the
        subject only when its content words are the subject's: "you have eggs"
        names "eggs"; "you have brown sugar" does not name "sugar", nor "eggs
        are cracked" "eggs"."""
        k = atom_key(subject or "") or atom_key(text)
        if k is not None:
            return self.l.get(k)
        if key(text) in self.l:
            return self.l[key(text)]
        said = tokens(text)
        for fact, v in self.l.items():
            if said and tokens(fact) == said:
                return v
        name = subject or text
        held = (*self.l, *self.r)
        for fact, v in self.l.items():
            if names_outside(fact, name, held):
                return v
        for res, n in self.r.items():
            if names_outside(res, name, held):
                return n > 0
        return None

    def label(self, text: str, subject: str | None = None) -> str:
        v = self.value(text, subject)
        return UNK if v is None else SAT if v else VIOL

    def signature(self) -> str:
        """A stable summary of the state (for refinement signatures)."""
        r = ",".join(f"{k}={v}" for k, v in sorted(self.r.items()))
        l = ",".join(f"{k}={int(v)}" for k, v in sorted(self.l.items()))  # noqa: E741 (the paper's name)
        return f"{r}|{l}|{self.t:g}|{self.s}"


@dataclass(frozen=True)
class Goal:
    """w* = (r*, s*, l*, t*): resources required at the end, the structure
    aimed at, goal predicates, the time budget."""

    r: Mapping[str, int]
    s: str
    l: Mapping[str, bool]  # noqa: E741 (the paper's name)
    t: float | None = None


def hard_check(w: World, goal: Goal) -> list[str]:
    """HARDCHECK: exact predicates, no distance. The reasons it fails (empty:
    passes): r* contained in r_f (the product made: :meth:`World.amount`), l*
    true in l_f, t_f within the budget, no resource below zero."""
    out = [f"needs {n} x {k}, has {w.amount(k)}" for k, n in goal.r.items()
           if w.amount(k) < n]
    out += [f"{k} is not established" for k, v in goal.l.items()
            if w.l.get(key(k)) is not v]
    budget = goal.t if goal.t is not None else w.budget
    if budget is not None and w.t > budget:
        out.append(f"takes {w.t:g}s, over the {budget:g}s budget")
    out += [f"uses more {k} than there is" for k, v in w.r.items() if v < 0]
    return out


Similarity = Callable[[str, str], float]  # a cosine distance in [0, 2]


@dataclass
class Distance:
    """D(w, w*) = alpha_s d_s + alpha_r ||r - r*||_1 + alpha_l d_l + alpha_t d_t
    (Eq. 1). ``d_s`` is the cosine distance of sentence embeddings, or the
    documented lexical stand-in; d_r counts, over the resources the goal names,
    how far the counts are from the goal's; d_l is the Hamming distance over
    the goal predicates (an unknown predicate differs); d_t is |t - t*|."""

    d_s: Similarity
    alpha_r: float = 1.0
    alpha_s: float = 2.0
    alpha_l: float = 1.5
    alpha_t: float = 0.001

    def parts(self, w: World, g: Goal) -> dict[str, float]:
        return {"r": float(sum(abs(w.amount(k) - n) for k, n in g.r.items())),
                "s": self.d_s(w.s, g.s) if g.s else 0.0,
                "l": float(sum(w.l.get(key(k)) is not v for k, v in g.l.items())),
                "t": abs(w.t - g.t) if g.t is not None else 0.0}

    def __call__(self, w: World, g: Goal) -> float:
        p = self.parts(w, g)
        return (self.alpha_r * p["r"] + self.alpha_s * p["s"] + self.alpha_l * p["l"]
                + self.alpha_t * p["t"])

    def score(self, w: World, g: Goal, tau: float) -> float:
        return math.exp(-self(w, g) / tau)

    def screen(self, w: World, g: Goal, thresholds: Mapping[str, float]) -> list[str]:
        """The distance screen of Eq. 5: an efficiency filter before the
        verifier, never an acceptance (components at or over their threshold)."""
        p = self.parts(w, g)
        return [f"d_{k} = {p[k]:.3g} >= {thresholds[k]:g}" for k in ("r", "s", "l", "t")
                if p[k] >= thresholds[k]]


def initial_world(facts: Iterable[str], s: str, budget: float | None,
                  negative: Iterable[str] = ()) -> World:
    return World({}, s, {**{key(f): True for f in facts}, **{key(f): False for f in negative}},
                 0.0, budget)
