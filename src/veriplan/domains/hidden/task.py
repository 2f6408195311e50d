"""Tasks with hidden preconditions (the SQ-BCP evaluation protocol), one format
for every family, and the oracle every method asks.

A :class:`HiddenTask` holds the goal, what the prompt states, the m latent
preconditions (each with its truth for this user and the substitutes allowed
for it), hard constraints, a reference plan, what the task produces (the dish,
the artefact: r*) and what it is made with, and a family-specific decider that
judges a plan on the true task: a
:class:`~veriplan.core.verdict.Judgement` of scope
:attr:`~veriplan.core.verdict.Scope.HIDDEN_TASK` with typed findings (valid,
invalid, or unknown where no fact of the task decides). The k-reveal
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
from typing import TYPE_CHECKING, TypedDict

from veriplan.core.verdict import Finding, FindingKind, Judgement, Scope
from veriplan.errors import ConfigError

if TYPE_CHECKING:
    from veriplan.pddl.task import Task

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


Decider = Callable[["HiddenTask", Sequence[str]], Judgement]


class TaskPayload(TypedDict, total=False):
    """What a family's decider and its methods read of a task (each family sets its own keys)."""

    seed: int
    # PDDL families: the problem files, what was withheld, the true initial state
    domain: str
    problem: str
    config: str | None  # the PlanBench wording config, if any
    withheld: tuple[str, ...]
    decoys: tuple[str, ...]
    visible_task: Task  # the task as the prompt states it
    goal_atoms: tuple[str, ...]
    reference_steps: tuple[str, ...]
    # (true initial atoms, predicate -> arity, objects): the oracle's closed world
    closed_world: tuple[frozenset[str], dict[str, int], frozenset[str]]
    # natural-language families (recipes, how-to articles): where the task came from
    title: str
    source: str
    line: int
    variant: int
    url: str
    things_needed: tuple[str, ...] | None
    steps: tuple[str, ...]
    link: str
    ingredients: tuple[str, ...]
    directions: tuple[str, ...]


@dataclass(frozen=True)
class HiddenTask:
    """One task of a family. ``decide(plan)`` judges the plan on the true task
    (a :class:`~veriplan.core.verdict.Judgement` of scope ``HIDDEN_TASK``);
    ``payload`` carries what the family's decider needs (PDDL paths, the
    withheld facts, the recipe's resource vocabulary, ...). ``product`` is what
    the task makes (the dish, the artefact: the goal's r*; empty for PDDL,
    whose goal is its atoms) and ``made_with`` what the task's own procedure
    makes it with (the ingredients or materials its steps use)."""

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
    payload: TaskPayload = field(default_factory=TaskPayload, compare=False, repr=False)
    # the actions a step may be, as every method's prompt states them (PDDL families:
    # each schema with its parameters, precondition and effects); () when steps are free text
    actions: tuple[str, ...] = ()
    product: str = ""
    made_with: tuple[str, ...] = ()

    @property
    def m(self) -> int:
        return len(self.latent)

    def decide(self, plan: Sequence[str]) -> Judgement:
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


# ----- whole-word names -------------------------------------------------------------------
def _forms(w: str) -> set[str]:
    """A word, its plural and its singular (by the usual English rules)."""
    out = {w}
    if w.endswith("ies") and len(w) > 4:
        out.add(w[:-3] + "y")
    elif w.endswith(("oes", "ches", "shes", "xes", "sses")):
        out.add(w[:-2])
    elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        out.add(w[:-1])
    if w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
        out.add(w[:-1] + "ies")
    elif w.endswith(("o", "ch", "sh", "x", "ss")):
        out.add(w + "es")
    elif not w.endswith("s"):
        out.add(w + "s")
    return out


def _phrase(name: str) -> str | None:
    parts = ["(?:" + "|".join(sorted(map(re.escape, _forms(w)), key=len, reverse=True)) + ")"
             for w in re.findall(r"[a-z0-9]+", name.lower())]
    return r"\b" + r"[\s'’-]+".join(parts) + r"\b" if parts else None


def phrase_pattern(name: str) -> re.Pattern[str] | None:
    """``name`` as whole words in a text (each word in its singular or plural
    form; "butter" does not match inside "buttermilk")."""
    p = _phrase(name)
    return re.compile(p, re.IGNORECASE) if p else None


# A mention in one of these is not a use: "margarine instead of butter".
_REPLACING = (r"(?:instead\s+of|in\s+place\s+of|rather\s+than|without|no|not)\s+"
              r"(?:(?:the|a|an|any|your|some)\s+)?")


def uses(step: str, name: str, longer: Iterable[str] = ()) -> bool:
    """Whether ``step`` uses ``name``, whatever else it names: any whole-word
    mention of the name (its words in order, each singular or plural) counts,
    except inside the longer names in ``longer`` ("brown sugar" does not use
    "sugar"), and in a phrase that says it is not used ("instead of butter",
    "without a whisk"). The step's first word is a verb, not a use, when the
    step says what replaces it ("Whisk the eggs (use a fork instead of
    whisk)")."""
    p = _phrase(name)
    if p is None:
        return False
    need = words(name)
    for other in longer:
        q = _phrase(other)
        if q is not None and need < words(other):
            step = re.sub(q, " ", step, flags=re.IGNORECASE)
    text, n = re.subn(_REPLACING + p, " ", step, flags=re.IGNORECASE)
    if n:
        lead = re.match(r"\s*" + p, text, re.IGNORECASE)
        if lead:
            text = text[lead.end():]
    return re.search(p, text, re.IGNORECASE) is not None


def _held(task: HiddenTask) -> list[str]:
    """The names the user has (the task's resources and the allowed
    substitutes), without the missing ones."""
    missing = [p for p in task.latent if not p.holds]
    lacking = {words(p.subject) for p in missing}
    return [r for r in (*task.resources, *(s for p in missing for s in p.substitutes))
            if words(r) not in lacking]


def resource_decider(task: HiddenTask, plan: Sequence[str]) -> Judgement:
    """The decider of the natural-language families, on the true task.

    - A step that uses a latent subject the user does not have is
      ``MISSING_ITEM``, whatever else it names (naming the substitute too does
      not make it the adaptation: "fry in butter and margarine" uses butter);
      a missing subject named only inside a longer name the user has ("brown
      sugar" when "sugar" is missing) or in "instead of ..." is not used.
    - The product (r*): a plan that uses nothing the task's procedure makes it
      with (its ingredients or materials, or their allowed substitutes) never
      produces it (``NOT_PRODUCED``: "Serve the pancakes"); one that leaves out
      some of them is ``UNGROUNDED`` for each (no fact of the task says the
      product is made without it), so the verdict is unknown at best.

    Valid only with no finding: every item used is held, and what the product
    is made with is all used."""
    if not plan:
        return Judgement.of(Scope.HIDDEN_TASK, [Finding(FindingKind.EMPTY, None, "",
                                                        "no plan")])
    found: list[Finding] = []
    missing = [p for p in task.latent if not p.holds]
    held = _held(task)
    for i, step in enumerate(plan, 1):
        for p in missing:
            if uses(step, p.subject, held):
                allowed = (f" (allowed instead: {', '.join(p.substitutes)})"
                           if p.substitutes else "")
                found.append(Finding(FindingKind.MISSING_ITEM, i, p.subject,
                                     f"uses {p.subject}, which the user does not have"
                                     + allowed))
    found += product_findings(task, plan, held)
    return Judgement.of(Scope.HIDDEN_TASK, found)


def product_findings(task: HiddenTask, plan: Sequence[str], held: Sequence[str]
                     ) -> list[Finding]:
    """Whether ``plan`` makes the task's product from what it is made with:
    each item of ``task.made_with`` (a missing one: one of its substitutes, or
    the item itself, which the missing-item check flags) must be used by some
    step."""
    product = task.product or task.goal
    if not task.made_with:
        return [Finding(FindingKind.UNGROUNDED, None, product,
                        f"the task does not say what {product} is made with")]
    subs = {words(p.subject): p.substitutes for p in task.latent if not p.holds}
    unused = []
    for item in task.made_with:
        options = (item, *subs.get(words(item), ()))
        if not any(names_outside(step, o, held) for step in plan for o in options):
            unused.append(item)
    if len(unused) == len(task.made_with):
        return [Finding(FindingKind.NOT_PRODUCED, None, product,
                        f"never makes {product}: uses none of what it is made with "
                        f"({', '.join(task.made_with)})")]
    return [Finding(FindingKind.UNGROUNDED, None, item,
                    f"never uses {item}: no fact of the task says {product} is made "
                    "without it") for item in unused]
