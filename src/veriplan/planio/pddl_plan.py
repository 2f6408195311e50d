"""Read plans written as PDDL actions, one per line: ``(stack a b)``,
``stack a b``, ``stack(a, b)``, ``1. (stack a b)``, ``(1. stack a b)``,
``Step 1: stack a b``, in code fences, with ``;`` comments, between plan
markers in any dress (``[PDDL PLAN]``, ``### PDDL Plan:``) and up to the end
marker (``[PLAN END]``). With a PlanBench config, objects may be named in its
encodings (``(unstack yellow red)``, ``(feast object c object b)``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import replace

from veriplan.core.plan import Step, _new, _set_args, _set_line, _set_name, make_step
from veriplan.errors import SHOWN_MAX, bounded, shown
from veriplan.lazyre import LazyPattern
from veriplan.pddl.names import CLEAN_STEP, NAME
from veriplan.planio.parsed import (
    LINE,
    Collector,
    ParsedPlan,
    UnreadLine,
    marker,
    split_answer,
)

# In the PDDL form, "(action arg ...)", a name is any name the PDDL reader accepts
# (veriplan.pddl.names: one rule for both readers). Bare words and the call form
# "stack(a, b)" stand in prose too, so there a word is plain ASCII, or a name of
# the task's actions and objects (Vocabulary.words).
_ONE = LazyPattern(rf"\(\s*({NAME}(?:\s+{NAME})*)\s*\)")
_GROUP = LazyPattern(r"\(\s*([^()]*?)\s*\)")
_GROUP_WORDS = LazyPattern(rf"^{NAME}(?:[\s,]+{NAME})*$")
_NAME = r"[a-z_][a-z0-9_\-]*"
_WORDS = LazyPattern(rf"^{_NAME}(?:[\s,]+[a-z0-9_][a-z0-9_\-]*)*$")
_CALL = LazyPattern(rf"({_NAME})\s*\(\s*([^()]*?)\s*\)")
_CALL_START = LazyPattern(rf"^{_NAME}\s*\(")
_GROUP_NUMBER = LazyPattern(r"^\d+\s*[.):]\s*")
_SEPARATORS = LazyPattern(r"[\s_\-]+")
_JOIN = LazyPattern(r"[-_]")
_NOT_A_VERB = frozenset(("the", "a", "an", "this", "that", "it", "i", "we", "so", "and",
                         "then", "now", "my", "our", "here", "there", "no", "yes"))
AMBIGUOUS = "ambiguous"
_NO_FORM = "not of the form (action arg ...)"


def _container(items: Iterable[str] | None) -> Container[str] | None:
    if items is None or isinstance(items, (set, frozenset, dict)):
        return items
    return frozenset(items)


def _norm(name: str) -> str:
    return " ".join(_SEPARATORS.split(name.strip(" _-")))


class Vocabulary:
    """How an answer may name the task's actions and objects.

    ``action_names`` (None: any name), ``objects`` (None: any argument),
    ``aliases`` (other names of objects, e.g. from a PlanBench config: ``red
    block``, ``object c``), ``verbs`` (words that open an action in natural
    language), ``max_args`` (the most arguments an action takes); ``arity``
    (action -> its number of arguments) when known, for :func:`read_clean`.
    """

    arity: Mapping[str, int] | None = None

    def __init__(self, action_names: Iterable[str] | None = None,
                 objects: Iterable[str] | None = None, aliases: dict[str, str] | None = None,
                 verbs: Iterable[str] = (), max_args: int | Callable[[], int] = 3) -> None:
        self.actions = _container(action_names)
        self.objects = _container(objects)
        self.aliases = aliases or {}
        self._max_args = max_args
        self._verbs = verbs
        self._verb: re.Pattern | None | bool = False
        self._names: dict[str, str | None] | None = None
        self._objs: dict[str, str | None] | None = None

    @property
    def max_args(self) -> int:
        """The most arguments an action takes."""
        if callable(self._max_args):
            self._max_args = self._max_args()
        return self._max_args

    @property
    def verb(self) -> re.Pattern | None:
        """Matches a word that opens an action: an action's name or its first
        part (``pick`` of ``pick-up``), or a verb given."""
        if self._verb is False:
            words = {_JOIN.split(a)[0] for a in self.actions or ()} | set(self.actions or ())
            words |= {v.lower() for v in self._verbs if v}
            words = {w for w in words if w}
            self._verb = (re.compile(r"(?<![\w-])(?:" + "|".join(
                re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")[\w-]*")
                if words else None)
        return self._verb  # type: ignore[return-value]

    # ----- names -------------------------------------------------------------------------
    def action(self, words: list[str]) -> tuple[str, int] | None:
        """The action the first word(s) name and how many words name it:
        ``pick-up``, ``pick_up``, ``pickup`` or ``pick up`` for ``pick-up``."""
        first = words[0]
        if self.actions is None or first in self.actions:
            return first, 1
        if self._names is None:
            names: dict[str, str | None] = {}
            for a in self.actions:
                key = _JOIN.sub("", a)
                names[key] = a if names.get(key, a) == a else None
            self._names = names
        hit = self._names.get(_JOIN.sub("", first))
        if hit is not None:
            return hit, 1
        if len(words) > 1:
            hit = self._names.get(_JOIN.sub("", first + words[1]))
            if hit is not None:
                return hit, 2
        return None

    def arguments(self, words: list[str]) -> tuple[str, ...] | str | None:
        """The objects ``words`` name: a tuple when there is exactly one reading,
        ``AMBIGUOUS`` when there are several, None when there is none."""
        objects = self.objects
        if objects is None or all(w in objects for w in words):
            return tuple(words)
        if len(words) > 64:
            return None  # no action takes that many arguments
        if self._objs is None:
            table: dict[str, str | None] = {}
            for name, obj in [*((o, o) for o in objects), *self.aliases.items()]:
                key = _norm(name.lower())
                table[key] = obj if table.get(key, obj) == obj else None
            self._objs = table
        table = self._objs
        keys = [_norm(w) for w in words]
        # readings[i]: the object tuples words[i:] can name (at most two are kept).
        readings: list[set[tuple[str, ...]]] = [set() for _ in keys] + [{()}]
        for i in range(len(keys) - 1, -1, -1):
            out = readings[i]
            for k in range(1, min(4, len(keys) - i) + 1):
                obj = table.get(" ".join(keys[i:i + k]))
                if obj is not None:
                    out.update((obj, *tail) for tail in readings[i + k])
                if len(out) > 1:
                    break
        found = readings[0]
        if len(found) == 1:
            return found.pop()
        return AMBIGUOUS if found else None

    # ----- lines -------------------------------------------------------------------------
    def read_line(self, line: str, *, strict: bool = False,
                  arity: dict[str, int] | None = None
                  ) -> list[tuple[str, tuple[str, ...]]] | str:
        """The steps a PDDL-style line holds, or why it holds none. ``strict``:
        every argument must name an object (else the line has no reading) and,
        with ``arity``, each action must have its number of arguments."""
        low = line.lower().rstrip(".,!\\ ")
        one = _ONE.fullmatch(low)
        if one is not None and not _GROUP_NUMBER.match(one.group(1)):
            groups = [one.group(1)]
        elif low.startswith("("):
            groups = _GROUP.findall(low)
            rest = _GROUP.sub("", low).strip(" ,.")
            if len(groups) > 1 and groups[0].isdigit():
                del groups[0]  # "(1) (feast d b)"
            groups = [_GROUP_NUMBER.sub("", g, count=1) for g in groups]
            if not groups or rest or any(not _GROUP_WORDS.match(g) for g in groups):
                return _NO_FORM
        elif _CALL_START.match(low):
            calls = _CALL.findall(low)
            rest = _CALL.sub("", low).strip(" ,.;")
            groups = [f"{name} {args}" for name, args in calls]
            if not calls or rest or any(not self.words(g) for g in groups):
                return _NO_FORM
        elif self.words(low):
            groups = [low]
        else:
            return _NO_FORM
        out = []
        for g in groups:
            words = g.replace(",", " ").split()
            named = self.action(words)
            if named is None:
                return f"{words[0]} is not an action of the domain"
            name, used = named
            args = self.arguments(words[used:])
            if args == AMBIGUOUS:
                return "its arguments name the objects in more than one way"
            if args is None:
                if strict:
                    return "its arguments do not name objects of the task"
                args = tuple(words[used:])
            if strict and arity is not None and arity.get(name) != len(args):
                return f"{name} takes {arity.get(name)} argument(s)"
            out.append((name, args))
        return out

    def looks_like_action(self, low: str, *, bare_words: bool = True) -> bool:
        """Whether a line that has no reading still looks like an action (and so
        is unread, not prose): a parenthesis or call form, a word that opens an
        action, or (``bare_words``) no more bare words than an action and its
        arguments would take."""
        if low.startswith("(") or _CALL_START.match(low):
            return True
        if self.verb is not None and self.verb.search(low):
            return True
        if not bare_words:
            return False
        bare = low.rstrip(".,!\\ ")
        return self.words(bare) and len(bare.replace(",", " ").split()) <= (
            self.max_args + 1)

    def words(self, text: str) -> bool:
        """Whether ``text`` (lower case) is a list of words, as an action with its
        arguments is outside parentheses: plain ASCII words, or names of the
        task's actions and objects (any name the PDDL reader accepts)."""
        if _WORDS.match(text):
            return True
        if self.actions is None and self.objects is None:
            return False
        words = text.replace(",", " ").split()
        return bool(words) and all((self.actions is not None and w in self.actions)
                                   or (self.objects is not None and w in self.objects)
                                   for w in words)

    def names_objects(self, words: list[str]) -> bool:
        """Whether ``words`` (after a first word) are a list of objects."""
        if not words or words[0] in _NOT_A_VERB:
            return False
        args = self.arguments(words[1:])
        return bool(words[1:]) and isinstance(args, tuple)


def read_pddl_plan(text: str, action_names: Iterable[str] | None = None, *,
                   objects: Iterable[str] | None = None, config=None,
                   max_args: int | Callable[[], int] = 3) -> ParsedPlan:
    """Read a PDDL-style plan.

    With ``action_names``, a line whose first word is not an action is unread,
    and a line that does not look like an action at all (no parenthesis, no
    action's name, a sentence) is prose. With ``objects`` and a PlanBench
    ``config``, arguments may name objects in the config's encodings; a line
    whose arguments name objects in more than one way is unread. Arguments
    that name no object are kept as written (the validator reports them).
    """
    if config is not None and objects is not None:
        objects = list(objects)
        verbs = [t.split()[0] for t in config.actions.values() if t.split()]
        vocab = Vocabulary(action_names, objects, config.aliases(objects), verbs, max_args)
    else:
        vocab = Vocabulary(action_names, max_args=max_args)
    return read_with(text, vocab)


_SHARED: dict[int, tuple[object, Vocabulary]] = {}


def schema_vocabulary(schemas: dict) -> Vocabulary:
    """The vocabulary of a domain's action schemas (name -> schema), kept for
    reuse while the same schemas object is alive in the cache."""
    hit = _SHARED.get(id(schemas))
    if hit is not None and hit[0] is schemas:
        return hit[1]
    if len(_SHARED) >= 64:
        _SHARED.clear()
    vocab = Vocabulary(schemas, max_args=lambda: max(
        (len(s.params) for s in schemas.values()), default=0))
    vocab.arity = {name: len(s.params) for name, s in schemas.items()}
    _SHARED[id(schemas)] = (schemas, vocab)
    return vocab


# A text of clean PDDL steps only: lines that are blank or one ``(action arg ...)``
# in lower case, spaces and tabs around the words, "\n" or "\r\n" line ends.
# (one line of such a text: veriplan.pddl.names.CLEAN_LINE)
_STEP = CLEAN_STEP
_CLEAN = LazyPattern(rf"(?:[ \t]*+(?:{_STEP}[ \t]*+)?(?:\r?\n|\Z))*+")
_INSIDE = LazyPattern(r"\(([^()]*)\)")
_SEEN = 4096
# "plan" as a word of its own (not in "airplane"), as a plan marker has it.
_PLAN_WORD = LazyPattern(r"(?<![a-z0-9])plan(?![a-z0-9])")


def clean_text(text: str) -> str | None:
    """``text`` in lower case when :func:`read_clean` may read it (every line blank or
    one clean ``(action arg ...)``, no line the full reader takes for a plan marker),
    else None. Its steps are then the groups of ``_INSIDE.findall`` of it, in order."""
    low = text if text.islower() or not text else text.lower()
    if _CLEAN.fullmatch(low) is None:
        return None
    if "plan" in low and ("__" in low or (_PLAN_WORD.search(low) is not None and any(
            marker(line.strip()) for line in low.splitlines() if "plan" in line))):
        return None  # the full reader takes the line for a plan marker, or drops "__"
    return low


def read_clean(text: str, arity: Mapping[str, int] | None,
               actions: Container[str] | None = None,
               objects: Container[str] | None = None) -> ParsedPlan | None:
    """The fast path of the PDDL reader: the plan of a text whose every line is
    blank or one clean ``(action arg ...)`` step, each naming a known action
    with its number of arguments (``arity``: action -> arity; None: any action
    in ``actions``, or any action when that is None too) and known objects
    (``objects``; None: any), or None for any other text, which the full
    reader (:func:`read_with`) then reads. Where it returns a plan, the full
    reader returns an equal one (the same steps, with the same line numbers)."""
    low = clean_text(text)
    if low is None:
        return None
    n = low.count("(")
    if n == low.count("\n") + (not low.endswith("\n")):
        numbers: Iterable[int] = range(1, n + 1)  # no blank line
    else:
        numbers = [k for k, line in enumerate(low.splitlines(), 1) if "(" in line]
    # make_step inlined: a call a step is a tenth of this reader's time.
    new, set_name, set_args, set_line = _new, _set_name, _set_args, _set_line
    if len(low) > _LONG:
        return _read_long(low, numbers, arity, actions, objects)
    steps = []
    append = steps.append
    for k, group in zip(numbers, _INSIDE.findall(low)):
        words = group.split()
        name = words[0]
        if arity is not None:
            if arity.get(name) != len(words) - 1:
                return None
        elif actions is not None and name not in actions:
            return None
        args = tuple(words[1:])
        if objects is not None:
            for a in args:
                if a not in objects:
                    return None
        step = new(Step)
        set_name(step, name)
        set_args(step, args)
        set_line(step, k)
        append(step)
    return ParsedPlan(tuple(steps))


_LONG = 1 << 16  # a plan text longer than this is read by _read_long


def _read_long(low: str, numbers: Iterable[int], arity: Mapping[str, int] | None,
               actions: Container[str] | None, objects: Container[str] | None
               ) -> ParsedPlan | None:
    """:func:`read_clean`'s loop for a long text, lean on memory: a step's text seen
    before shares its name and arguments (up to _SEEN distinct texts), and the steps
    go straight into their tuple (no list beside it)."""
    new, set_name, set_args, set_line = _new, _set_name, _set_args, _set_line
    seen: dict[str, tuple[str, tuple[str, ...]]] = {}

    def steps() -> Iterator[Step]:
        for k, m in zip(numbers, _INSIDE.finditer(low)):
            group = m.group(1)
            hit = seen.get(group)
            if hit is None:
                words = group.split()
                name = words[0]
                if arity is not None:
                    if arity.get(name) != len(words) - 1:
                        raise _NotClean
                elif actions is not None and name not in actions:
                    raise _NotClean
                args = tuple(words[1:])
                if objects is not None:
                    for a in args:
                        if a not in objects:
                            raise _NotClean
                if len(seen) >= _SEEN:
                    seen.clear()
                hit = seen[group] = (name, args)
            step = new(Step)
            set_name(step, hit[0])
            set_args(step, hit[1])
            set_line(step, k)
            yield step

    try:
        return ParsedPlan(tuple(steps()))
    except _NotClean:
        return None


class _NotClean(Exception):
    """A step the fast path leaves to the full reader."""


def _steps(got, n: int) -> list[Step] | str:
    return got if isinstance(got, str) else [Step(name, args, n) for name, args in got]


def read_with(text: str, vocab: Vocabulary, *, objects: Container[str] | None = None,
              fast: bool = True) -> ParsedPlan:
    """Read ``text`` with ``vocab``: by :func:`read_clean` when the text is
    clean PDDL (``objects``: the task's objects, checked there when the
    vocabulary has none; an action's arity is checked when the vocabulary
    knows it), else line by line (``fast=False``: always so)."""
    actions = vocab.actions
    if fast:
        plan = read_clean(text, vocab.arity, actions,
                          vocab.objects if vocab.objects is not None else objects)
        if plan is not None:
            return plan
    objects = vocab.objects
    answer = split_answer(text)
    out = Collector(answer)
    # A step's text seen before shares its name and arguments (memory: a long plan
    # repeats itself), up to _SEEN distinct texts.
    seen: dict[str, tuple[str, tuple[str, ...]]] = {}
    for n, line, kind in answer.items:
        if kind != LINE:
            out.other(n, line, kind)
            continue
        aside = out.aside(n)
        if aside is not None:
            out.nested(n, aside[0], aside[1], _steps(vocab.read_line(line), n))
            continue
        one = _ONE.fullmatch(line.lower())
        if one is not None:  # the common case: (action object ...) with known names
            group = one.group(1)
            hit = seen.get(group)
            if hit is None:
                name, *args = group.split()
                if (actions is None or name in actions) and (
                        objects is None or all(a in objects for a in args)):
                    if len(seen) >= _SEEN:
                        seen.clear()
                    hit = seen[group] = (name, tuple(args))
            if hit is not None:
                out.add_steps(n, [make_step(hit[0], hit[1], n)])
                continue
        got = vocab.read_line(line)
        if not isinstance(got, str):
            out.add_steps(n, [Step(name, args, n) for name, args in got])
        elif (actions is not None and not answer.block
              and not vocab.looks_like_action(line.lower())):
            out.add_prose(n, "names no action of the domain")
        else:
            out.unread.append(UnreadLine(n, line, got))
    return bounded_plan(out.done(), actions, objects)


#: The longest line of the answer a plan's unread or prose lines show whole.
LINE_SHOWN = 1000


def _line_shown(u: UnreadLine) -> UnreadLine:
    text, reason = u.text, u.reason
    if len(text) <= SHOWN_MAX and len(reason) <= SHOWN_MAX:
        return u
    return UnreadLine(u.line, shown(bounded(text), LINE_SHOWN), bounded(reason))


def bounded_plan(plan: ParsedPlan, actions: Container[str] | None = None,
                 objects: Container[str] | None = None) -> ParsedPlan:
    """``plan`` with every name over :data:`~veriplan.errors.SHOWN_MAX` characters
    that is no name of the task (``actions``, ``objects``; None: none known) cut
    by :func:`~veriplan.errors.shown`, and so every line it did not read: a 50 MB
    object name is then echoed by no step, message or record. The verdict is the
    same (a cut name holds a space, so names no object either)."""
    def cut(name: str, known: Container[str] | None) -> str:
        return name if len(name) <= SHOWN_MAX or (known is not None and name in known) \
            else shown(name)

    steps = plan.steps
    if any(len(s.name) > SHOWN_MAX or any(len(a) > SHOWN_MAX for a in s.args) for s in steps):
        steps = tuple(make_step(cut(s.name, actions), tuple(cut(a, objects) for a in s.args),
                                s.line) for s in steps)
    unread = tuple(map(_line_shown, plan.unread))
    prose = tuple(map(_line_shown, plan.prose))
    if steps is plan.steps and unread == plan.unread and prose == plan.prose:
        return plan
    return replace(plan, steps=steps, unread=unread, prose=prose)
