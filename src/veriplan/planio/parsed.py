"""What a plan reader returns (the steps it read, every line it could not, and the
prose it passed over), and the line handling both readers share: markers, plan
blocks, numbering, labels and markdown dress."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from veriplan.core.plan import Step
from veriplan.errors import PlanParseError


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
    the end marker."""

    steps: tuple[Step, ...]
    unread: tuple[UnreadLine, ...] = ()
    ignored_after_end: int = 0
    prose: tuple[UnreadLine, ...] = ()

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

_FENCE = re.compile(r"^\s*(```|~~~)")
# A list mark, then a step number in any usual dress ("1.", "1)", "(1)", "Step 1:",
# "Action 2 -"), then an "Action:" label; group 1/2/3 is the number.
_NUMBERING = re.compile(
    r"^(?:[-*•+]\s+)?"
    r"(?:(?:step|action|move)\s*#?(\d+)\s*(?:[.):\-—–]\s*|\s+)"
    r"|\((\d+)\)\s*"
    r"|#?(\d+)\s*(?:[.):]|\s[-—–])\s*)?"
    r"(?:(?:action|move|step)\s*:\s*)?",
    re.IGNORECASE)
# "(1. feast a d)": a number just inside the parenthesis of a PDDL step.
_INNER_NUMBER = re.compile(r"^\(\s*\d+\s*[.):]\s*(?=[^\s()])")
# Lines labelled as something other than an action.
_PROSE_LABEL = re.compile(
    r"^(?:(?:current|new|resulting|initial|final|intermediate|updated|next|world|goal|my"
    r"|the)\s+)*(?:state|states|goal|goals|reasoning|explanation|reason|thoughts?|"
    r"observation|note|check|result|effects?|preconditions?|justification|comment|"
    r"rationale|analysis|verification|condition|conditions)\s*(?:\d+\s*)?:",
    re.IGNORECASE)
_DECOR = re.compile(r"[\[\]()*#:=_<>|~`.,!\-]+")
_MARK_MODIFIERS = frozenset((
    "the", "my", "a", "final", "full", "corrected", "revised", "pddl", "natural",
    "language", "nl", "optimal", "proposed", "solution", "your", "updated", "new",
    "generated", "resulting", "here", "is", "as", "follows", "of", "this", "our", "so",
    "therefore", "thus", "hence", "then", "overall", "entire", "whole", "following",
    "below", "would", "be", "will", "that", "step", "by"))
_MARK_START = (["plan"], ["plan", "start"], ["start", "plan"], ["begin", "plan"],
               ["plan", "begin"], ["plan", "begins"])
_MARK_END = (["plan", "end"], ["end", "plan"], ["plan", "ends"], ["plan", "ended"])
_INLINE_END = re.compile(
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

    def text(self, n: int) -> str:
        return self.raw[n - 1].strip()


# The IPC/VAL timed form of a step: "0.000: (unstack c a) [1]" (a time with a decimal
# point, or any time with a duration after the step).
_TIMED = re.compile(r"^(\d+\.\d*|\.\d+|\d+(?=\s*:\s*\(.*\)\s*\[))\s*:\s*(\(.*\))"
                    r"\s*(?:\[\s*(?:\d+(?:\.\d*)?|\.\d+)\s*\])?$")


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
        if line[0] in "0123456789." and ":" in line:
            timed = _TIMED.match(line.split(";", 1)[0].rstrip())
            if timed is not None:
                t = float(timed.group(1))
                unordered = unordered or (bool(times) and t < times[-1])
                times.append(t)
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
            if number == 1 and last_number > 1:
                items.append((n, "", BREAK))  # the numbering starts again
            last_number = number
        if pending is not None:
            start, pending = pending, None
        items.append((n, line, LINE))
    else:
        after = -1
    if unordered:
        at = [i for i, (_m, _t, k) in enumerate(items) if k == LINE]
        if len(at) == len(times):  # every step has a time: take them in order of time
            order = sorted(range(len(at)), key=times.__getitem__)
            ordered = [items[at[j]] for j in order]
            for i, x in zip(at, ordered):
                items[i] = x
    if start is not None:
        # A plan heading with lines after it: what came before it is context.
        items[:start] = [(m, "context before the plan heading", PROSE) if k == LINE else
                         (m, t, k) for m, t, k in items[:start]]
    return AnswerLines(items, raw_lines, start is not None and after >= 0, max(after, 0))


_BOLD_UNDERSCORES = re.compile(r"(?<![\w-])__(?=\S)|(?<=\S)__(?![\w-])")


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


class Collector:
    """What a reader has read so far, in line order; ``done`` builds the
    ParsedPlan. A plan stated twice in a row (the second copy after a prose
    line, marker, fence or restarted numbering) is read once."""

    __slots__ = ("answer", "steps", "unread", "prose", "bounds")

    def __init__(self, answer: AnswerLines) -> None:
        self.answer = answer
        self.steps: list[Step] = []
        self.unread: list[UnreadLine] = []
        self.prose: list[UnreadLine] = []
        self.bounds = {0}

    def other(self, n: int, text: str, kind: int) -> None:
        """A ``PROSE`` (``text`` is the reason) or ``BREAK`` item."""
        if kind == PROSE:
            self.prose.append(UnreadLine(n, self.answer.text(n), text))
        self.bounds.add(len(self.steps))

    def add_prose(self, n: int, reason: str) -> None:
        self.other(n, reason, PROSE)

    def done(self) -> ParsedPlan:
        steps, prose = self.steps, self.prose
        half = len(steps) // 2
        if half and half in self.bounds and len(steps) % 2 == 0 and \
                steps[:half] == steps[half:]:  # Step equality ignores the line
            again = sorted({s.line for s in steps[half:] if s.line is not None})
            prose += [UnreadLine(n, self.answer.text(n), "restates the plan read above")
                      for n in again]
            prose.sort(key=lambda u: u.line)
            steps = steps[:half]
        return ParsedPlan(tuple(steps), tuple(self.unread), self.answer.after_end,
                          tuple(prose))
