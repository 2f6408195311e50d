"""The records ``veriplan validate --batch`` prints, as JSON text: a judged item's
written field by field (:func:`judged_record`, :func:`record_text`), an unjudged
one's (:func:`error_record`), each the text of ``BatchVerdict.to_dict()`` encoded;
and record text made writable to a stream of any encoding (:func:`json_text`)."""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, TypeAlias

from veriplan.core.jsonvalue import JSONValue
from veriplan.verify.verdicts import BatchVerdict, ItemError

if TYPE_CHECKING:
    from veriplan.verify.result import ValidationResult


class Written(Protocol):
    """A part of a verdict the record lists by its PDDL text (an atom, a literal,
    a condition)."""

    def pddl(self) -> str: ...

ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


encode_str = json.encoder.encode_basestring  # a str as JSON, as ENCODER writes it


def json_value(value: JSONValue) -> str:
    """``value`` as JSON text, as :data:`ENCODER` writes it."""
    if value is None:
        return "null"
    if type(value) is str:
        return encode_str(value)
    if type(value) is int:
        return int.__repr__(value)
    return ENCODER.encode(value)


#: A batch item's id: whatever JSON value the user gave under "id" (written back as
#: given), so no narrower type than a JSON value.
ItemId: TypeAlias = JSONValue


def id_json(ident: ItemId) -> str:
    """An item's id as JSON; null for one that cannot be written (nested deeper than
    the encoder goes)."""
    try:
        return json_value(ident)
    except (ValueError, TypeError, RecursionError):
        return "null"


def error_record(line: int, ident: ItemId, error: ItemError) -> str:
    """The record of an item that was not judged, as JSON text."""
    d = BatchVerdict(line, None, error=error).to_dict()
    text = ENCODER.encode(d)
    return text.replace('"id": null', '"id": ' + id_json(ident), 1)


def judged_record(line: int, ident: ItemId, valid: bool, steps: int, failed_step: int | None,
                  action: str | None, failure: str | None, detail: str | None,
                  unsatisfied: Iterable[Written], unmet: Iterable[Written], unread: str = "",
                  metric: float | None = None) -> str:
    """The record of a judged item (:meth:`BatchVerdict.to_dict`), as JSON text."""
    enc = encode_str
    return record_text(line, id_json(ident), "true" if valid else "false", steps,
                       json_value(failed_step), json_value(action),
                       enc(failure) if failure else "null", enc(detail) if detail else "null",
                       ", ".join([enc(u.pddl()) for u in unsatisfied]),
                       ", ".join([enc(g.pddl()) for g in unmet]), unread, json_value(metric))


def result_record(line: int, ident: ItemId, r: ValidationResult) -> tuple[bool, str]:
    """The verdict and record of a judged item from its validation result."""
    if r.preferences is not None or r.constraints:  # (PDDL 3: the record's extra keys)
        text = ENCODER.encode(BatchVerdict(line, None, result=r).to_dict())
        return r.valid, text.replace('"id": null', '"id": ' + id_json(ident), 1)
    enc = encode_str
    unread = ", ".join([f'{{"line": {json_value(u.line)}, "text": {enc(u.text)}, '
                        f'"reason": {enc(u.reason)}}}' for u in r.unread]) if r.unread else ""
    return r.valid, judged_record(line, ident, r.valid, len(r.plan), r.failed_step, r.action,
                                  str(r.error) if r.error else None, r.detail, r.unsatisfied,
                                  r.unmet_goals, unread,
                                  r.metric.value if r.metric is not None else None)


def record_text(line: int, ident: str, valid: str, steps: int, failed_step: str,
                action: str, failure: str, detail: str, unsatisfied: str, unmet: str,
                unread: str, metric: str = "null") -> str:
    """A judged item's record from its fields' JSON (the lists' items joined)."""
    return (f'{{"line": {line}, "id": {ident}, "valid": {valid}, "steps": {steps}, '
            f'"unread": [{unread}], "failed_step": {failed_step}, "failed_action": {action}, '
            f'"failure": {failure}, "detail": {detail}, "unsatisfied": [{unsatisfied}], '
            f'"unmet_goals": [{unmet}], "metric": {metric}, "error": null}}')


# ----- writing records -----------------------------------------------------------------------
def _json_escape(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for ch in exc.object[exc.start:exc.end]:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}")
        else:
            out.append(f"\\u{cp:04x}")
    return "".join(out), exc.end


#: The codec error handler that writes a character the output cannot encode (a lone
#: surrogate from a JSON "\ud800"; any non-ASCII one on an ASCII stream) as a JSON
#: escape; records only hold such characters inside strings, so they stay JSON.
JSON_ESCAPE = "veriplan-json-escape"
codecs.register_error(JSON_ESCAPE, _json_escape)


def json_text(text: str, encoding: str | None) -> str:
    """Record text that ``encoding`` can write: characters it cannot (lone
    surrogates, or any beyond its range) as JSON escapes."""
    enc = encoding or "utf-8"
    try:
        text.encode(enc)
        return text
    except UnicodeEncodeError:
        return text.encode(enc, JSON_ESCAPE).decode(enc)
