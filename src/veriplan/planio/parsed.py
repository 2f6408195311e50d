"""What a plan reader returns (the steps it read, every line it could not, and the
prose it passed over), and the line handling both readers share: markers, plan
blocks, numbering, labels and markdown dress."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from veriplan.core.plan import Step
from veriplan.errors import PlanParseError
from veriplan.lazyre import LazyPattern


@dataclass(frozen=True, slots=True)
class UnreadLine:
    line: int  # 1-based line number in the text given to the reader
    text: str
    reason: str

    def __str__(self) -> str:
        return f"line {self.line} ({self.text!r}): {self.reason}"


@dataclass(frozen=True)
class ParsedPlan:
    """``steps`` read; ``unread``: lines that look like actions but have no single
    reading (a plan with one is not valid); ``prose``: lines that are not actions
    (explanations, context outside the plan block, a restated copy of the plan),
    which do not make a plan invalid; ``ignored_after_end``: non-blank lines after
    the end marker; ``times``: when every step was written in the IPC/VAL timed
    form (``0.000: (unstack c a) [1]``), each step's time, in step order (steps
    are taken in order of time), else None. Steps at equal times are one
    happening (see :func:`veriplan.verify.validate_plan`). ``durations``: with
    ``times``, each step's ``[d]`` (None for a step written without one)."""

    steps: tuple[Step, ...]
    unread: tuple[UnreadLine, ...] = ()
    ignored_after_end: int = 0
    prose: tuple[UnreadLine, ...] = ()
    times: tuple[float, ...] | None = None
    durations: tuple[float | None, ...] | None = None

    @property
    def ok(self) -> bool:
        return not self.unread

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    def raise_for_errors(self, file: str | None = None) -> ParsedPlan:
        if self.unread:
            u = self.unread[0]
            more = f" (and {len(self.unread) - 1} more)" if len(self.unread) > 1 else ""
            raise PlanParseError(f"cannot read plan line {u.text!r}: {u.reason}{more}",
                                 file=file, line=u.line, col=1)
        return self


# ----- lines of an answer ----------------------------------------------------------------
LINE, PROSE, BREAK = 0, 1, 2  # kinds of AnswerLines.items
RESTART = "numbering restarts"  # the text of a BREAK where the numbering starts again

_FENCE = LazyPattern(r"^\s*(```|~~~)")
# A list mark, then a step number in any usual dress ("1.", "1)", "(1)", "Step 1:",
# "Action 2 -"), then an "Action:" label; group 1/2/3 is the number.
_NUMBERING = LazyPattern(
    r"^(?:[-*•+]\s+)?"
    r"(?:(?:step|action|move)\s*#?(\d+)\s*(?:[.):\-—–]\s*|\s+)"
    r"|\((\d+)\)\s*"
    r"|#?(\d+)\s*(?:[.):]|\s[-—–])\s*)?"
    r"(?:(?:action|move|step)\s*:\s*)?",
    re.IGNORECASE)
# "(1. feast a d)": a number just inside the parenthesis of a PDDL step.
_INNER_NUMBER = LazyPattern(r"^\(\s*\d+\s*[.):]\s*(?=[^\s()])")
# Lines labelled as something other than an action.
_PROSE_LABEL = LazyPattern(
    r"^(?:(?:current|new|resulting|initial|final|intermediate|updated|next|world|goal|my"
    r"|the)\s+)*(?:state|states|goal|goals|reasoning|explanation|reason|thoughts?|"
    r"observation|note|check|result|effects?|preconditions?|justification|comment|"
    r"rationale|analysis|verification|condition|conditions)\s*(?:\d+\s*)?:",
    re.IGNORECASE)
_DECOR = LazyPattern(r"[\[\]()*#:=_<>|~`.,!\-]+")
_MARK_MODIFIERS = frozenset((
    "the", "my", "a", "final", "full", "corrected", "revised", "pddl", "natural",
    "language", "nl", "optimal", "proposed", "solution", "your", "updated", "new",
    "generated", "resulting", "here", "is", "as", "follows", "of", "this", "our", "so",
    "therefore", "thus", "hence", "then", "overall", "entire", "whole", "following",
    "below", "would", "be", "will", "that", "step", "by"))
_MARK_START = (["plan"], ["plan", "start"], ["start", "plan"], ["begin", "plan"],
               ["plan", "begin"], ["plan", "begins"])
_MARK_END = (["plan", "end"], ["end", "plan"], ["plan", "ends"], ["plan", "ended"])
_INLINE_END = LazyPattern(
    r"\[\s*(?:pddl\s+)?plan\s+end\s*\]|\[\s*end(?:\s+of)?(?:\s+(?:the|pddl))*\s+plan\s*\]")


def marker(low: str) -> int:
    """1 for a line that opens a plan (``[PLAN]``, ``(PDDL PLAN)``,
    ``### PDDL Plan:``, ``Here is the plan:``), 2 for one that closes it
    (``[PLAN END]``, ``**END PDDL PLAN**``), 0 otherwise. ``low`` is lower case."""
    if "plan" not in low or len(low) > 60:
        return 0
    words = [w for w in _DECOR.sub(" ", low).split() if w not in _MARK_MODIFIERS]
    if words in _MARK_START:
        return 1
    if words in _MARK_END:
        return 2
    return 0


@dataclass(slots=True)
class AnswerLines:
    """An answer split into lines. ``items`` are ``(line_number, text, kind)``:
    ``LINE`` a cleaned line that may hold a step, ``PROSE`` a line that is not
    one (``text`` is then the reason), ``BREAK`` a marker, fence or restart of
    the numbering (where a restated plan may begin). ``block`` is true when the
    lines come from an explicit plan block (a start and an end marker)."""

    items: list[tuple[int, str, int]]
    raw: list[str]
    block: bool = False
    after_end: int = 0
    numbers: dict[int, int] = field(default_factory=dict)  # line -> its step number
    times: dict[int, float] = field(default_factory=dict)  # line -> its time (timed form)
    durations: dict[int, float] = field(default_factory=dict)  # line -> its [d] (timed form)

    def indent(self, n: int) -> int:
        """How far line ``n`` is indented (a tab counts four)."""
        raw = self.raw[n - 1].expandtabs(4)
        return len(raw) - len(raw.lstrip())

    def text(self, n: int) -> str:
        return self.raw[n - 1].strip()


# The IPC/VAL timed form of a step: "0.000: (unstack c a) [1]" (a time with a decimal
# point or an exponent, or any time with a duration after the step). Signs, "nan" and
# "inf" are read too, in times and durations: the validator says why such a step
# cannot be judged (a negative or not finite time or duration), rather than the
# line being left unread.
_SPECIAL = r"(?i:nan|inf(?:inity)?)"
_EXP = r"(?:[eE][+-]?\d+)?"
_TIMED = LazyPattern(
    rf"^([+-]?(?:\d+\.\d*{_EXP}|\.\d+{_EXP}|\d+[eE][+-]?\d+|{_SPECIAL}"
    r"|\d+(?=\s*:\s*\(.*\)\s*\[)))\s*:\s*(\(.*\))"
    rf"\s*(?:\[\s*([+-]?(?:\d+(?:\.\d*)?{_EXP}|\.\d+{_EXP}|{_SPECIAL}))\s*\])?$")


def split_answer(text: str) -> AnswerLines:
    """Split an answer into its plan lines: up to the first end marker
    (``[PLAN END]`` in any dress), after the last start marker before it (text
    before a start marker is context), with code fences, ``;`` comments on PDDL
    lines, numbering, bullets, ``Action:`` labels, markdown emphasis and
    trailing line-break backslashes removed.

    Text whose only line breaks are escaped (``\\n`` written out) is unescaped; a
    leading byte-order mark is skipped. Steps in the IPC/VAL timed form
    (``0.000: (unstack c a) [1]``) lose time and duration, and when every step
    has a time they are taken in order of time (a stable sort).
    """
    if text[:1] == "\ufeff":
        text = text[1:]
    if "\n" not in text.strip() and "\\n" in text:
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    items: list[tuple[int, str, int]] = []
    raw_lines = text.splitlines()
    pending: int | None = None  # where the last plan heading is, until a line follows it
    start: int | None = None  # where the plan begins, after a heading with lines after it
    last_number = 0
    # In the common case (PDDL steps, nothing else) no line needs cleaning.
    plain = ";" not in text and "[" not in text and "plan" not in text.lower()
    after = 0
    times: list[float] = []  # the times of steps in the timed form, in line order
    at_line: dict[int, float] = {}
    dur_line: dict[int, float] = {}
    numbers: dict[int, int] = {}
    unordered = False
    for n, raw in enumerate(raw_lines, 1):
        line = raw.strip()
        if not line:
            continue
        if plain and line[0] == "(" and line[-1] == ")":
            items.append((n, line, LINE))  # "(1. a b)" and "(1) (a b)" are the readers' care
            continue
        if _FENCE.match(line):
            items.append((n, "", BREAK))
            continue
        if line[0] == ";":
            continue  # a comment line
        if line[0] in "0123456789.+-nNiI" and ":" in line:
            timed = _TIMED.match(line.split(";", 1)[0].rstrip())
            if timed is not None:
                t = float(timed.group(1))
                unordered = unordered or (bool(times) and not t >= times[-1])  # (nan too)
                times.append(t)
                at_line[n] = t
                if timed.group(3) is not None:
                    dur_line[n] = float(timed.group(3))
                items.append((n, _INNER_NUMBER.sub("(", timed.group(2), count=1), LINE))
                if pending is not None:
                    start, pending = pending, None
                continue
        if ";" in line:
            head = line.split(";", 1)[0].rstrip()
            if head.endswith(")") and _clean(head)[0].startswith("("):
                line = head  # a PDDL step with a comment after it
        low = line.lower()
        end_at = _INLINE_END.search(low) if "[" in low else None
        kind = marker(low)
        if kind == 2 or (end_at is not None and kind == 0):
            head = line[: end_at.start()].strip() if kind == 0 and end_at else ""
            if head:
                cleaned, _ = _clean(head)
                if cleaned:
                    items.append((n, cleaned, LINE))
            after = sum(1 for r in raw_lines[n:] if r.strip() and not _FENCE.match(r))
            break
        if kind == 1:
            pending = len(items)
            items.append((n, "", BREAK))
            last_number = 0
            continue
        line, number = _clean(line)
        if not line:
            continue
        if _PROSE_LABEL.match(line):
            items.append((n, "labelled as a description, not an action", PROSE))
            continue
        if number is not None:
            numbers[n] = number
            if number == 1 and last_number > 1:
                items.append((n, RESTART, BREAK))  # the numbering starts again
            last_number = number
        if pending is not None:
            start, pending = pending, None
        items.append((n, line, LINE))
    else:
        after = -1
    if unordered:
        at = [i for i, (_m, _t, k) in enumerate(items) if k == LINE]
        if len(at) == len(times):  # every step has a time: take them in order of time
            # (a time that is nan last: the validator refuses it)
            order = sorted(range(len(at)), key=lambda j: (times[j] != times[j], times[j]))
            ordered = [items[at[j]] for j in order]
            for i, x in zip(at, ordered):
                items[i] = x
    if start is not None:
        # A plan heading with lines after it: what came before it is context.
        items[:start] = [(m, "context before the plan heading", PROSE) if k == LINE else
                         (m, t, k) for m, t, k in items[:start]]
    return AnswerLines(items, raw_lines, start is not None and after >= 0, max(after, 0),
                       numbers, at_line, dur_line)


_BOLD_UNDERSCORES = LazyPattern(r"(?<![\w-])__(?=\S)|(?<=\S)__(?![\w-])")


def _clean(line: str) -> tuple[str, int | None]:
    """Markdown dress and numbering removed; the step number, if any."""
    if "`" in line:
        line = line.replace("`", "")
    if "**" in line:
        line = line.replace("**", "").strip()
    if "__" in line:  # __bold__, not a name with a double underscore (loc__1)
        line = _BOLD_UNDERSCORES.sub("", line).strip()
    if line.endswith("\\"):
        line = line.rstrip("\\ \t")
    number = None
    for _ in range(2):  # "1. **Step 1:** ..." is numbered twice
        m = _NUMBERING.match(line)
        if m is None or not m.end():
            break
        digits = m.group(1) or m.group(2) or m.group(3)
        if number is None and digits:
            number = int(digits)
        line = line[m.end():].lstrip()
    if line and line[0] in "*_" and line[-1] == line[0]:
        line = line.strip(line[0]).strip()  # *emphasis* around the whole step
    if line[:1] == "(":
        line = _INNER_NUMBER.sub("(", line, count=1)
    return line, number


def plan_lines(text: str) -> tuple[list[tuple[int, str]], int]:
    """The lines of ``text`` that may hold a step, as ``(line_number, cleaned)``
    (see :func:`split_answer`), and the number of non-blank lines after the end
    marker."""
    answer = split_answer(text)
    return [(n, t) for n, t, k in answer.items if k == LINE], answer.after_end


# Words by which an answer gives up a plan it wrote ("However, this fails",
# "Alternative approach:", "Let's try again", "Revised plan").
_ABANDON = LazyPattern(
    r"\b(?:however|but|wait|doesn'?t work|does not work|won'?t work|cannot|can'?t|can not|"
    r"not possible|impossible|invalid|mistake|error|incorrect|wrong|fails?|failed|violat\w*|"
    r"oops|let'?s try|let me try|try again|alternative\w*|instead|revis\w*|correct(?:ed|ion)|"
    r"re-?evaluat\w*|reconsider\w*|start over|backtrack\w*|adjust\w*|not achievable)\b",
    re.IGNORECASE)
# Words by which an answer says, after its last step, that no plan reaches the goal.
_NO_PLAN = LazyPattern(
    r"\b(?:no (?:valid |possible |feasible )?(?:plan|sequence|solution)\b|"
    r"(?:is|it'?s|seems|be) (?:not |im)possible|not (?:possible|achievable|feasible) to|"
    r"impossible to|cannot be (?:achieved|reached|accomplished|satisfied)|unachievable|"
    r"unsolvable|unreachable|does not (?:fully )?achieve|doesn'?t (?:fully )?achieve)",
    re.IGNORECASE)
_LISTED = LazyPattern(r"\s*(?:[-*•+]\s|\d+\s*[.):]|\(\d+\)|#+\s|(?:step|action)\s*#?\d+)",
                      re.IGNORECASE)
# A heading over lines that explain or check the plan ("Explanation of the Plan:",
# "Action Breakdown:", "Step-by-step reasoning:").
_ABOUT = LazyPattern(r"\b(?:explanation|explained|breakdown|reasoning|verification|verify|"
                     r"justification|rationale|analysis|notes?|walk-?through|details|"
                     r"why this works|how it works|check(?:ing)?)\b", re.IGNORECASE)
_HEADING = LazyPattern(r"[:：]\s*$")


def _heading(text: str) -> bool:
    """A line that introduces what follows ("**Explanation**:", "Final plan:")."""
    return bool(_HEADING.search(text.replace("*", "").replace("_", "").rstrip()))


class Collector:
    """What a reader has read so far, in line order; ``done`` builds the
    ParsedPlan as a careful reader takes it.

    The structure of an answer decides which lines are steps of its plan: a
    line indented under a step explains that step; lines under a description
    heading ("Explanation:", "Verification:") describe; the plan stated again
    (the same steps, after a marker, fence, heading or restarted numbering) is
    read once; an attempt the answer gives up ("However, ...", "Alternative
    approach:") before a different plan is prose; two different plans with no
    such word between them, or a plan followed by the answer's own word that no
    plan reaches the goal, leave the answer not valid with that reason."""

    __slots__ = ("answer", "steps", "unread", "prose", "bounds", "cuts", "anchor",
                 "section")

    def __init__(self, answer: AnswerLines) -> None:
        self.answer = answer
        self.steps: list[Step] = []
        self.unread: list[UnreadLine] = []
        self.prose: list[UnreadLine] = []
        self.bounds = {0}
        self.cuts: list[tuple[int, bool]] = []  # (line, always): where a plan may begin
        self.anchor: tuple[int, int, tuple] | None = None  # (indent, line, steps) of a step
        self.section: tuple[int, int] | None = None  # (indent, line) of a description heading

    def other(self, n: int, text: str, kind: int) -> None:
        """A ``PROSE`` (``text`` is the reason) or ``BREAK`` item."""
        if kind == PROSE:
            self._leave(n)
            self.prose.append(UnreadLine(n, self.answer.text(n), text))
            raw = self.answer.text(n)
            if _heading(raw):
                if self.section is None and (text.startswith("labelled as a description")
                                             or _ABOUT.search(raw)):
                    self.section = (self.answer.indent(n), n)  # the outer heading holds
                self.cuts.append((n, False))
        else:
            self.anchor = None
            if text != RESTART:  # a numbered explanation stays under its heading
                self.section = None
            self.cuts.append((n, True))
        self.bounds.add(len(self.steps))

    def add_prose(self, n: int, reason: str) -> None:
        self.other(n, reason, PROSE)

    def _leave(self, n: int) -> None:
        """Forget the step or heading that line ``n`` is no longer indented under."""
        indent = self.answer.indent(n)
        if self.anchor is not None and indent <= self.anchor[0]:
            self.anchor = None
        if self.section is not None and (
                indent < self.section[0]
                or (indent == self.section[0] and _heading(self.answer.text(n)))):
            self.section = None

    def aside(self, n: int) -> tuple[str, tuple | None] | None:
        """Why line ``n`` is not a step of the plan by where it stands (and the
        steps it is indented under, if any), or None to read it."""
        self._leave(n)
        if self.anchor is not None:
            return (f"indented under the step at line {self.anchor[1]}: explains it",
                    self.anchor[2])
        if self.section is not None:
            return f"under the description heading at line {self.section[1]}", None
        return None

    def add_steps(self, n: int, steps: list[Step]) -> None:
        """Steps read from line ``n`` (lines indented under it explain them)."""
        self.steps.extend(steps)
        if _LISTED.match(self.answer.raw[n - 1]):  # an item of a list: "1. ...", "- ..."
            self.anchor = (self.answer.indent(n), n, tuple((s.name, s.args) for s in steps))
        else:
            self.anchor = None

    def nested(self, n: int, reason: str, anchored: tuple | None, got: list[Step] | str
               ) -> None:
        """Line ``n`` set aside by :meth:`aside`; ``got``: what it reads as. A
        line under a step that names a different action is not clear: a step of
        the plan or a remark?"""
        if (anchored is not None and not isinstance(got, str) and got
                and tuple((s.name, s.args) for s in got) != anchored):
            self.unread.append(UnreadLine(
                n, self.answer.text(n), f"an action {reason.split(':')[0]}: "
                "a step of the plan or a remark about it?"))
        else:
            self.add_prose(n, reason)

    # ----- the plan the answer commits to ---------------------------------------------
    def _segments(self) -> list[tuple[list[Step], list[UnreadLine], int, int]]:
        """The answer's candidate plans in order: steps and unread lines between
        two places where a plan may begin, with their first and last line."""
        numbers = self.answer.numbers
        content = sorted({s.line for s in self.steps if s.line is not None}
                         | {u.line for u in self.unread})
        cuts = []
        for n, always in self.cuts:
            nxt = next((m for m in content if m >= n), None)
            if nxt is None:
                continue
            # A heading before steps whose numbering goes on ("To get there, we
            # need to: 3. ...") is inside one plan.
            if always or nxt not in numbers or numbers[nxt] == 1:
                cuts.append(n)
        segs: list[tuple[list[Step], list[UnreadLine], int, int]] = []
        bounds = sorted(set(cuts))
        def index(line: int) -> int:
            return bisect_right(bounds, line)
        groups: dict[int, tuple[list[Step], list[UnreadLine]]] = {}
        for s in self.steps:
            groups.setdefault(index(s.line or 0), ([], []))[0].append(s)
        for u in self.unread:
            groups.setdefault(index(u.line), ([], []))[1].append(u)
        for k in sorted(groups):
            st, un = groups[k]
            lines = [s.line for s in st if s.line is not None] + [u.line for u in un]
            segs.append((st, un, min(lines), max(lines)))
        return segs

    def _between(self, lo: int, hi: int) -> str:
        return "\n".join(self.answer.raw[lo:hi - 1])

    def done(self) -> ParsedPlan:
        segs = self._segments()
        if len(segs) <= 1:
            return self._single()
        prose = list(self.prose)
        extra: list[UnreadLine] = []
        kept = []
        for i, seg in enumerate(segs):
            if i + 1 < len(segs):
                gap = self._between(seg[3], segs[i + 1][2])
                m = _ABANDON.search(gap)
                key = [(s.name, s.args) for s in seg[0]]
                later = [(s.name, s.args) for s in segs[i + 1][0]]
                if m is not None and (key != later or seg[1]):
                    where = seg[3] + 1 + gap[:m.start()].count("\n")
                    why = (f"an attempt the answer gives up ({m.group(0)!r} at line {where}) "
                           "before another plan")
                    prose += [UnreadLine(s.line, self.answer.text(s.line), why)
                              for s in seg[0] if s.line is not None]
                    prose += [UnreadLine(u.line, u.text, why) for u in seg[1]]
                    continue
            kept.append(seg)
        first = kept[0]
        key = [(s.name, s.args) for s in first[0]]
        steps = list(first[0])
        unread = list(first[1])
        for seg in kept[1:]:
            unread += seg[1]
            if [(s.name, s.args) for s in seg[0]] == key:
                why = f"restates the plan read at lines {first[2]}-{first[3]}"
                prose += [UnreadLine(s.line, self.answer.text(s.line), why)
                          for s in seg[0] if s.line is not None]
            else:
                why = (f"a step of a second, different plan (lines {seg[2]}-{seg[3]}; the "
                       f"first is at lines {first[2]}-{first[3]}) with no word that either "
                       "is given up: which one the answer commits to is not clear")
                extra += [UnreadLine(s.line, self.answer.text(s.line), why)
                          for s in seg[0] if s.line is not None]
        last = max(seg[3] for seg in kept)
        extra += self._no_plan(last)
        taken = {u.line for u in extra}
        prose = sorted((u for u in prose if u.line not in taken), key=lambda u: u.line)
        return ParsedPlan(tuple(steps), tuple(sorted(unread + extra, key=lambda u: u.line)),
                          self.answer.after_end, tuple(prose), *self._times(steps))

    def _no_plan(self, last: int) -> list[UnreadLine]:
        """The answer's own word, after its last step, that no plan reaches the goal."""
        # Up to the end marker: what follows it is not read (``ignored_after_end``).
        stop = (max((m for m, _t, _k in self.answer.items), default=last)
                if self.answer.after_end else len(self.answer.raw))
        for n in range(last + 1, stop + 1):
            m = _NO_PLAN.search(self.answer.raw[n - 1])
            if m is not None:
                return [UnreadLine(n, self.answer.text(n),
                                   f"the answer says after its plan that it does not reach "
                                   f"the goal ({m.group(0)!r})")]
        return []

    def _single(self) -> ParsedPlan:
        steps, prose = self.steps, self.prose
        unread = list(self.unread)
        half = len(steps) // 2
        if half and half in self.bounds and len(steps) % 2 == 0 and \
                steps[:half] == steps[half:]:  # Step equality ignores the line
            again = sorted({s.line for s in steps[half:] if s.line is not None})
            prose += [UnreadLine(n, self.answer.text(n), "restates the plan read above")
                      for n in again]
            prose.sort(key=lambda u: u.line)
            steps = steps[:half]
        lines = [s.line for s in steps if s.line is not None] + [u.line for u in unread]
        if lines:
            said = self._no_plan(max(lines))
            if said:
                unread += said
                prose = [u for u in prose if u.line != said[0].line]
        return ParsedPlan(tuple(steps), tuple(unread), self.answer.after_end, tuple(prose),
                          *self._times(steps))

    def _times(self, steps: list[Step]
               ) -> tuple[tuple[float, ...] | None, tuple[float | None, ...] | None]:
        """Each step's time when every step has one (the timed form), else None; and
        then each step's duration (None where it has no ``[d]``)."""
        at = self.answer.times
        if not at or not steps:
            return None, None
        out = []
        for s in steps:
            t = at.get(s.line) if s.line is not None else None
            if t is None:
                return None, None
            out.append(t)
        durs = self.answer.durations
        return tuple(out), tuple(durs.get(s.line) for s in steps)  # type: ignore[arg-type]
