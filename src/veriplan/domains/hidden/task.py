"""Tasks with hidden preconditions (the SQ-BCP evaluation protocol), one format
for every family, and the oracle every method asks.

A :class:`HiddenTask` holds the goal, what the prompt states, the m latent
preconditions (each with its truth for this user and the substitutes allowed
for it), hard constraints, a reference plan, and a family-specific decider that
says which steps of a plan violate a resource or a constraint. The k-reveal
protocol (:meth:`HiddenTask.variant`) reveals k of the m latent preconditions,
chosen with a seeded generator; the :class:`Oracle` answers questions about the
rest from the ground truth, only what is asked, and counts every call.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from veriplan.errors import ConfigError

_WORD = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")  # location_1_0 is one word
_STOP = frozenset([
    "a", "an", "the", "of", "to", "for", "and", "or", "is", "are", "be", "do", "does", "you",
    "your", "have", "has", "with", "in", "on", "at", "it", "this", "that", "there", "any",
    "some", "can", "could", "i", "we", "my", "our"])
# Plurals the suffix rules below do not turn into their singular.
_IRREGULAR = {"knives": "knife", "leaves": "leaf", "halves": "half", "loaves": "loaf",
              "shelves": "shelf", "children": "child", "teeth": "tooth", "feet": "foot",
              "geese": "goose", "mice": "mouse", "dice": "die"}


def _singular(w: str) -> str:
    """A naive singular key: the same for a noun and its plural in the usual
    cases (egg/eggs, tomato/tomatoes, berry/berries, cookie/cookies,
    peach/peaches, glass/glasses); not always a word itself."""
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if len(w) > 3 and w.endswith(("sse", "che", "she", "xe", "oe")):
        w = w[:-1]
    if len(w) > 2 and w.endswith("ie"):
        w = w[:-2] + "y"
    return w


def tokens(text: str) -> tuple[str, ...]:
    """Content words in order, lower case, naive singular."""
    return tuple(_singular(w) for w in _WORD.findall(text.lower()) if w not in _STOP)


def words(text: str) -> frozenset[str]:
    """Content words, lower case, naive singular (what question matching uses)."""
    return frozenset(tokens(text))


@dataclass(frozen=True)
class Latent:
    """One latent precondition: ``text`` states it ("you have a hand saw"),
    ``subject`` names the thing it is about ("hand saw": the resource, tool or
    fact a question must mention), ``holds`` is the ground truth for this user,
    ``substitutes`` are what may stand in for the subject when it does not hold."""

    id: str
    text: str
    subject: str
    holds: bool
    substitutes: tuple[str, ...] = ()
    kind: str = "resource"  # resource | equipment | fact | constraint
    # Other names a question may use for the subject (a PDDL fact in words:
    # "the red block is clear" for "(clear a)"); matched like the subject,
    # and in word order for facts.
    aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.subject, *self.aliases)


@dataclass(frozen=True)
class Violation:
    step: int | None  # 1-based plan step, None for the plan as a whole
    what: str  # the resource or constraint violated
    why: str

    def __str__(self) -> str:
        where = f"step {self.step}" if self.step is not None else "the plan"
        return f"{where}: {self.what}: {self.why}"


Decider = Callable[["HiddenTask", Sequence[str]], list[Violation]]


@dataclass(frozen=True)
class HiddenTask:
    """One task of a family. ``decide(plan)`` lists the plan's violations on the
    true task (an empty list: no resource or constraint is violated);
    ``payload`` carries what the family's decider needs (PDDL paths, the
    withheld facts, the recipe's resource vocabulary, ...)."""

    id: str
    family: str
    goal: str
    known: tuple[str, ...]
    latent: tuple[Latent, ...]
    constraints: tuple[str, ...]
    reference: tuple[str, ...]
    decider: Decider = field(compare=False, repr=False)
    resources: tuple[str, ...] = ()  # every resource/tool name the task mentions
    time_budget: float | None = None  # seconds, when the family has one
    payload: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # the actions a step may be, as every method's prompt states them (PDDL families:
    # each schema with its parameters, precondition and effects); () when steps are free text
    actions: tuple[str, ...] = ()

    @property
    def m(self) -> int:
        return len(self.latent)

    def decide(self, plan: Sequence[str]) -> list[Violation]:
        return self.decider(self, plan)

    def variant(self, k: int, seed: int = 0) -> Variant:
        """Reveal ``k`` of the m latent preconditions, chosen uniformly with
        ``seed`` (the same task, k and seed always reveal the same ones)."""
        if not k >= 0:
            raise ConfigError(f"k={k}: the number of revealed preconditions is at least 0")
        k = min(k, self.m)
        rng = random.Random(f"{self.id}:{k}:{seed}")
        shown = tuple(sorted(rng.sample(range(self.m), k)))
        return Variant(self, tuple(self.latent[i] for i in shown),
                       tuple(p for i, p in enumerate(self.latent) if i not in shown))


@dataclass(frozen=True)
class Variant:
    """A task as a method sees it: the revealed preconditions join the known
    facts; the hidden ones must be found by asking or bridging."""

    task: HiddenTask
    revealed: tuple[Latent, ...]
    hidden: tuple[Latent, ...]

    def prompt_facts(self) -> tuple[str, ...]:
        """What the prompt states: the known facts and the revealed
        preconditions, each as its truth ("you have ..." / "you do not have ...")."""
        return self.task.known + tuple(state_of(p) for p in self.revealed)


def state_of(p: Latent) -> str:
    if p.kind == "fact" and p.subject.startswith("("):  # a PDDL fact: as the known facts are
        return p.subject if p.holds else f"not {p.subject}"
    if p.holds:
        return p.text
    subs = f" (you could use {' or '.join(p.substitutes)} instead)" if p.substitutes else ""
    return f"not so: {p.text}{subs}"


@dataclass(frozen=True)
class Answer:
    """The oracle's answer: ``status`` is "yes" (the precondition holds), "no"
    (it does not; ``substitutes`` may name what could stand in) or "unknown"
    (the question matched no precondition of the task: uninformative)."""

    status: str
    text: str
    about: str | None = None  # the matched latent precondition's id
    substitutes: tuple[str, ...] = ()

    @property
    def informative(self) -> bool:
        return self.status != "unknown"


class Oracle:
    """Answers questions from a task's ground truth; every call is counted.

    A question is matched to the precondition whose subject's content words it
    contains (all of them; the most words wins, ties go to the first); the
    same matching serves every method. Revealed preconditions are answered
    too (asking about something the prompt already says costs a call).

    A task whose truth is a whole PDDL initial state (``payload["closed_world"]``:
    the true atoms, the predicates' arities and the objects) also answers a
    question naming one well-formed atom of it that is no latent precondition:
    yes when the true initial state holds it, no otherwise (closed world), as
    an oracle that knows the true problem would."""

    def __init__(self, task: HiddenTask) -> None:
        self.task = task
        self.calls = 0
        self.log: list[tuple[str, Answer]] = []
        self._lock = threading.Lock()
        self._subjects = [(words(p.subject), p) for p in task.latent]
        self._names = [(name, len(words(name)), p.kind == "fact" and i > 0, p)
                       for p in task.latent for i, name in enumerate(p.names)]

    def match(self, question: str) -> Latent | None:
        """The latent precondition the question names (by its subject or an
        alias; a fact's alias in word order), the most specific one first."""
        best: tuple[int, Latent] | None = None
        for name, size, ordered, p in self._names:
            if (best is None or size > best[0]) and mentions(question, name, ordered=ordered):
                best = (size, p)
        return best[1] if best else None

    def _closed_world(self, question: str) -> Answer | None:
        world = self.task.payload.get("closed_world") if self.task.payload else None
        if not world:
            return None
        true, arity, objects = world
        found = set()
        for m in _ATOM.finditer(question.lower()):
            a = atom_key(m.group(0))
            pred, *args = a[1:-1].split() if a else ("",)
            if a and arity.get(pred) == len(args) and set(args) <= objects:
                found.add(a)
        if len(found) != 1:
            return None
        (atom,) = found
        return Answer("yes", f"Yes: {atom}.") if atom in true else \
            Answer("no", f"No: it is not so that {atom}.")

    def ask(self, question: str) -> Answer:
        p = self.match(question)
        if p is None:
            answer = self._closed_world(question) or Answer("unknown", "I don't know.")
        elif p.holds:
            answer = Answer("yes", f"Yes: {p.text}.", p.id)
        else:
            alt = f" You could use {' or '.join(p.substitutes)} instead." if p.substitutes \
                else ""
            answer = Answer("no", f"No: it is not so that {p.text}.{alt}", p.id,
                            p.substitutes)
        with self._lock:
            self.calls += 1
            self.log.append((question, answer))
        return answer


_ATOM = re.compile(r"\(\s*[\w-]+(?:\s+[\w-]+)*\s*\)")


def atom_key(text: str) -> str | None:
    """``"(on a b)"`` -> ``"(on a b)"`` normalised, when ``text`` is one PDDL atom."""
    t = text.strip().lower()
    return "(" + " ".join(t[1:-1].split()) + ")" if _ATOM.fullmatch(t) else None


def mentions(text: str, name: str, *, ordered: bool = False) -> bool:
    """Whether ``text`` names ``name``: a PDDL atom name (``(clear a)``) must
    appear as that atom; otherwise all its content words, as whole words (with
    ``ordered``, also in the same order: "the red block is on the blue block"
    is not named by "is the blue block on the red block")."""
    key = atom_key(name)
    if key is not None:
        return key in {atom_key(m.group(0)) for m in _ATOM.finditer(text.lower())}
    if not ordered:
        need = words(name)
        return bool(need) and need <= words(text)
    need_seq, have = tokens(name), iter(tokens(text))
    return bool(need_seq) and all(w in have for w in need_seq)


def _without(seq: tuple[str, ...], phrase: tuple[str, ...]) -> tuple[str, ...]:
    """``seq`` with every run of ``phrase`` taken out."""
    out: list[str] = []
    i, n = 0, len(phrase)
    while i < len(seq):
        if n and seq[i:i + n] == phrase:
            i += n
        else:
            out.append(seq[i])
            i += 1
    return tuple(out)


def names_outside(text: str, name: str, longer: Iterable[str]) -> bool:
    """Whether ``text`` names ``name`` outside the longer names in ``longer``:
    every run of a name whose content words strictly contain ``name``'s is
    taken out of ``text`` first ("you have brown sugar" does not name "sugar"
    when "brown sugar" is among ``longer``). The one rule of the resource
    decider and of SQ-BCP's grounding, so planning and judging agree."""
    need = words(name)
    seq = tokens(text)
    for other in longer:
        t = tokens(other)
        if need < frozenset(t):
            seq = _without(seq, t)
    return bool(need) and need <= frozenset(seq)


def resource_decider(task: HiddenTask, plan: Sequence[str]) -> list[Violation]:
    """The decider of the natural-language families: a step violates a
    resource when it names a latent subject the user does not have, unless it
    also names one of that subject's allowed substitutes (using the substitute
    is the adaptation). A missing subject named only inside a longer name
    the user does have ("brown sugar" when "sugar" is missing) is not used."""
    out = []
    missing = [p for p in task.latent if not p.holds]
    lacking = {words(p.subject) for p in missing}
    held = [r for r in (*task.resources, *(s for p in missing for s in p.substitutes))
            if words(r) not in lacking]
    for i, step in enumerate(plan, 1):
        for p in missing:
            # "brown sugar" (held) in a step does not use "sugar" (missing).
            if names_outside(step, p.subject, held) \
                    and not any(mentions(step, s) for s in p.substitutes):
                out.append(Violation(i, p.subject, f"uses {p.subject}, which the user does "
                                     "not have" + (f" (allowed instead: "
                                                   f"{', '.join(p.substitutes)})"
                                                   if p.substitutes else "")))
    return out
