"""The input of a JSON Lines batch: a stream's lines within the size limit
(:func:`read_lines`) and each line's item, as strict JSON (:func:`read_line`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import Enum
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias

from veriplan.pddl import inputs
from veriplan.verify.verdicts import ItemError

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue


class _Blank(Enum):
    BLANK = "blank"


#: What :func:`read_line` gives for a blank line (which gets no record).
BLANK = _Blank.BLANK

#: What :func:`read_line` gives: the line's JSON value, the error that keeps it from
#: being judged, or :data:`BLANK`.
LineItem: TypeAlias = "JSONValue | ItemError | Literal[_Blank.BLANK]"


class LineStream(Protocol):
    """A text stream read line by line (``sys.stdin``, an open file)."""

    def readline(self, size: int = -1, /) -> str: ...


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


# Strict JSON: NaN, Infinity and numbers out of a float's range are refused (a record
# that repeated them would not be JSON).
_DECODER = json.JSONDecoder(parse_constant=_constant, parse_float=_finite)
_SCAN = _DECODER.scan_once  # one JSON value at a position


class TooLong(str):
    """A line cut at the size limit (its rest was skipped)."""


def read_lines(stream: LineStream, limit: int | None = None) -> Iterator[str]:
    """The lines of a text stream, each at most ``limit`` characters (default
    :data:`veriplan.pddl.inputs.DEFAULT_MAX_BYTES`): a longer line is cut there and
    its rest skipped without being held, and comes out marked so that
    :func:`~veriplan.verify.windows.batch_lines` gives it a ``too-large`` record."""
    limit = inputs.DEFAULT_MAX_BYTES if limit is None else limit
    readline = stream.readline
    while True:
        line = readline(limit + 1)
        if not line:
            return
        if len(line) > limit and line[-1] != "\n":
            while True:  # skip the rest of the line
                rest = readline(1 << 20)
                if not rest or rest[-1] == "\n":
                    break
            line = TooLong("")
        yield line


def read_line(n: int, text: str, limit: int | None = None) -> LineItem:
    """The item on JSON line ``n``, or an ItemError; BLANK for a blank line."""
    if text.__class__ is TooLong or (limit is not None and len(text) > limit):
        return ItemError("too-large", f"input line {n} is longer than the limit of "
                                      f"{inputs.size_text(limit or len(text))} "
                                      "(--max-bytes)", line=n)
    try:  # the common line: a value from its first character to the line's end
        item, end = _SCAN(text, 0)
        if end == len(text) or text[end:] in ("\n", "\r\n"):
            return item
    except (StopIteration, ValueError, RecursionError):
        pass  # the decoder says what is wrong, or reads what the scanner did not start on
    body = text.rstrip("\r\n")
    if not body.strip():
        return BLANK
    if body[:1] == inputs.BOM:  # a file's byte-order mark, or a concatenated file's
        body = body[1:]
    try:
        return _DECODER.decode(body)
    except json.JSONDecodeError as exc:
        end = " (the line ends there)" if exc.pos >= len(body) else ""
        return ItemError("json", f"input line {n} is not JSON: {exc.msg} at column "
                                 f"{exc.colno}{end}", line=n, col=exc.colno)
    except RecursionError:
        return ItemError("json", f"input line {n} is not JSON: nested too deeply", line=n)
    except ValueError as exc:  # NaN, Infinity, 1e999, an integer of over 4300 digits
        return ItemError("json", f"input line {n} is not JSON: {str(exc)[:120]}", line=n)
