"""A small, fast s-expression reader for PDDL with source positions.

Atoms are lower-cased (PDDL is case-insensitive) and remember their offset;
lists remember the offset of their opening parenthesis. Line and column are
computed only when an error needs them.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from veriplan.errors import PDDLParseError

# Deeper nesting is refused. No real PDDL file needs it (the deepest in PlanBench and
# the IPC sets we hold is 10); every later pass over a formula (grounding,
# instantiation, validation, rendering) recurses about three Python frames a level,
# so at this depth they all need under 400 of the interpreter's 1000
# (tests/pddl/test_deep_nesting.py runs each pass at this depth).
MAX_DEPTH = 128
_TOKEN = re.compile(r"[()]|[^\s();]+|;[^\n]*|\s+")
# Control characters other than whitespace have no business in PDDL text.
_BAD_CHAR = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class Sym(str):
    """A lower-cased atom that remembers where it stood in the source."""

    offset: int

    def __new__(cls, text: str, offset: int) -> Sym:
        obj = super().__new__(cls, text)
        obj.offset = offset
        return obj


class SList(list):
    """A parenthesised list that remembers where it stood in the source."""

    offset: int = 0


@dataclass
class Source:
    """A PDDL text with its file name, able to turn offsets into line:col."""

    text: str
    file: str = "<text>"
    _newlines: list[int] | None = field(default=None, repr=False)

    def line_col(self, offset: int) -> tuple[int, int]:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        line = bisect.bisect_left(self._newlines, offset)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1, offset - start + 1

    def error(
        self, message: str, offset: int | None, *, requirement: str | None = None,
        cls: type[PDDLParseError] = PDDLParseError,
    ) -> PDDLParseError:
        line, col = self.line_col(offset) if offset is not None else (None, None)
        return cls(message, file=self.file, line=line, col=col, requirement=requirement)


def offset_of(node: object, default: int = 0) -> int:
    return getattr(node, "offset", default)


def read(source: Source) -> SList:
    """Read exactly one top-level s-expression (with nothing after it)."""
    tops = read_all(source)
    if len(tops) > 1:
        raise source.error("text after the end of the definition", tops[1].offset)
    return tops[0]


def read_all(source: Source) -> list[SList]:
    """Read the top-level s-expressions of a text (one or more; no text outside
    a list)."""
    text = source.text
    bad = _BAD_CHAR.search(text)
    if bad is not None:
        raise source.error(
            f"control character {bad.group()!r} in PDDL text (is this a binary file?)",
            bad.start(),
        )
    stack: list[SList] = []
    tops: list[SList] = []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        first = tok[0]
        if first == "(":
            lst = SList()
            lst.offset = m.start()
            if stack:
                stack[-1].append(lst)
            stack.append(lst)
            if len(stack) > MAX_DEPTH:
                raise source.error(f"lists nested more than {MAX_DEPTH} deep", m.start())
        elif first == ")":
            if not stack:
                raise source.error("unbalanced ')': no list is open here", m.start())
            done = stack.pop()
            if not stack:
                tops.append(done)
        elif first == ";" or first.isspace():
            continue
        else:
            if not stack:  # the text is not PDDL: say so without quoting it
                raise source.error(
                    "text outside any list: a PDDL file starts with '(define' "
                    "(is this a PDDL file?)", m.start())
            stack[-1].append(Sym(tok.lower(), m.start()))
    if stack:
        raise source.error(
            f"unbalanced '(': {len(stack)} list(s) not closed at end of file "
            "(the innermost one opens here)",
            stack[-1].offset,
        )
    if not tops:
        raise source.error("empty PDDL text: expected '(define ...)'", 0)
    return tops


_COMMENT = re.compile(r";[^\n]*")


def read_fast(text: str) -> list | None:
    """Read one s-expression into plain lists of lower-case strings, without
    positions; None for any text :func:`read` would reject (the caller then
    calls :func:`read` for the located error)."""
    if _BAD_CHAR.search(text):
        return None
    if ";" in text:
        text = _COMMENT.sub(" ", text)
    tokens = text.lower().replace("(", " ( ").replace(")", " ) ").split()
    if len(tokens) < 2 or tokens[0] != "(" or tokens[-1] != ")":
        return None
    stack: list[list] = []
    top = None
    for tok in tokens:
        if tok == "(":
            if top is not None or len(stack) >= MAX_DEPTH:
                return None
            lst: list = []
            if stack:
                stack[-1].append(lst)
            stack.append(lst)
        elif tok == ")":
            if not stack:
                return None
            done = stack.pop()
            if not stack:
                top = done
        elif stack:
            stack[-1].append(tok)
        else:
            return None
    return top if not stack else None
