"""What a plan reader returns: the steps it read and every line it could not."""

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
    steps: tuple[Step, ...]
    unread: tuple[UnreadLine, ...] = ()
    ignored_after_end: int = 0  # non-blank lines after [PLAN END]

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


_FENCE = re.compile(r"^\s*(```|~~~)")
_NUMBERING = re.compile(
    r"^\s*(?:[-*•]\s+|(?:step\s*)?\d+\s*[.):]\s*|(?:step\s*)\d+\s*[-—–]?\s*)", re.IGNORECASE)
PLAN_END = "[plan end]"


def plan_lines(text: str) -> tuple[list[tuple[int, str]], int]:
    """The lines of ``text`` that may hold a step, as ``(line_number, cleaned)``:
    code fences, numbering, bullets, ``;`` comments and blank lines removed,
    up to ``[PLAN END]``; and the number of non-blank lines after it.

    Text whose only line breaks are escaped (``\\n`` written out) is unescaped.
    """
    if "\n" not in text.strip() and "\\n" in text:
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    out: list[tuple[int, str]] = []
    raw_lines = text.splitlines()
    for n, raw in enumerate(raw_lines, 1):
        line = raw.strip()
        if not line:
            continue
        if line[0] == "(" and ";" not in line and "[" not in line:
            out.append((n, line))  # the common case: nothing to clean
            continue
        if _FENCE.match(raw):
            continue
        line = raw.split(";", 1)[0].strip()
        low = line.lower()
        if PLAN_END in low:
            head = line[: low.index(PLAN_END)].strip()
            if head:
                out.append((n, _NUMBERING.sub("", head, count=1).strip()))
            after = sum(1 for r in raw_lines[n:] if r.strip() and not _FENCE.match(r))
            return out, after
        line = _NUMBERING.sub("", line, count=1).strip()
        if low in ("[plan]", "plan:", "[plan]:"):
            continue
        if line:
            out.append((n, line))
    return out, 0
