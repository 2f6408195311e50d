"""Getting structure out of model answers: the last fenced code block, a JSON
object (with a tolerant repair pass), or a list of action lines. A failure is
an :class:`LLMOutputParseError` carrying the raw text.

:func:`parse_structured` reads a reply against a JSON schema and returns a
failure as a value instead: structured replies that do not fit are counted by
their callers, not raised."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from veriplan.errors import ConfigError, LLMOutputParseError

_FENCE = re.compile(r"```[ \t]*([\w+\-.]*)[ \t]*\n(.*?)(?:```|\Z)", re.S)


def last_code_block(text: str, language: str | None = None) -> str:
    """The body of the last fenced block (of ``language``, if given)."""
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    if language is not None:
        blocks = [b for b in blocks if b[0] in (language.lower(), "")]
    if not blocks:
        want = f"a ```{language} code block" if language else "a fenced code block"
        raise LLMOutputParseError(f"the answer has no {want}", text, want)
    return blocks[-1][1].rstrip("\n") + "\n"


def extract_json(text: str) -> dict | list:
    """The last JSON object or array in ``text``; repairs trailing commas,
    single quotes, Python literals and code fences when plain parsing fails."""
    candidates = [body for _, body in _FENCE.findall(text)] + [text]
    for cand in reversed(candidates):
        for chunk in _balanced_chunks(cand):
            for attempt in (chunk, _repair(chunk)):
                try:
                    return json.loads(attempt)
                except ValueError:
                    continue
    raise LLMOutputParseError("the answer holds no JSON object", text, "a JSON object")


def _balanced_chunks(text: str) -> list[str]:
    """Balanced {...} / [...] spans, last first (strings respected)."""
    spans = []
    stack: list[tuple[str, int]] = []
    in_str: str | None = None
    esc = False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == in_str:
                in_str = None
            continue
        if ch in "\"'":
            in_str = ch if stack else None
        elif ch in "{[":
            stack.append((ch, i))
        elif ch in "}]" and stack:
            open_ch, start = stack.pop()
            if (open_ch, ch) in (("{", "}"), ("[", "]")) and not stack:
                spans.append(text[start:i + 1])
    return spans[::-1]


def _repair(chunk: str) -> str:
    s = re.sub(r",\s*([}\]])", r"\1", chunk)
    s = re.sub(r"\bTrue\b", "true", s)
    s = re.sub(r"\bFalse\b", "false", s)
    s = re.sub(r"\bNone\b", "null", s)
    if '"' not in s:
        s = s.replace("'", '"')
    return s


_ACTION = re.compile(r"^\s*(?:\d+[.):]\s*|[-*]\s+)?(\([^()]+\))\s*$")


def action_lines(text: str) -> list[str]:
    """Every line that is one parenthesised action, e.g. ``(stack a b)``."""
    out = [m.group(1) for line in text.splitlines() if (m := _ACTION.match(line))]
    if not out:
        raise LLMOutputParseError("the answer has no (action ...) lines", text,
                                  "lines like (stack a b)")
    return out


def parse_structured(text: str, schema: Mapping) -> tuple[Any, str | None]:
    """``(value, None)`` for the JSON value in ``text`` that fits ``schema``,
    else ``(None, error)`` with the reason in words; never raises on the reply.

    The whole text is tried first (what a server that enforces the schema
    sends), then fenced blocks and ``{...}`` / ``[...]`` spans in prose, last
    first, each also after the repair pass of :func:`extract_json`; the first
    one that fits wins. When none fits, the error is the first candidate's.
    A schema that is not valid JSON Schema is the caller's mistake: a
    :class:`~veriplan.errors.ConfigError`.
    """
    validator = _validator(schema)
    first_error: str | None = None
    for value in _json_candidates(text):
        problems = list(validator.iter_errors(value))
        if not problems:
            return value, None
        if first_error is None:
            first_error = _describe(problems)
    if first_error is None:
        return None, "the reply holds no JSON value"
    return None, first_error


def check_schema(schema: Mapping) -> None:
    """Raise :class:`~veriplan.errors.ConfigError` unless ``schema`` is a valid
    JSON schema (checked once per distinct schema)."""
    _validator(schema)


_VALIDATORS: dict[str, Any] = {}
_VALIDATORS_LOCK = threading.Lock()


def _validator(schema: Mapping) -> Any:
    if not isinstance(schema, Mapping):
        raise ConfigError(f"a JSON schema is a dict, not {type(schema).__name__}")
    key = json.dumps(schema, sort_keys=True, ensure_ascii=False)
    with _VALIDATORS_LOCK:
        found = _VALIDATORS.get(key)
    if found is not None:
        return found
    import jsonschema  # imported on first use: most runs never need it

    cls = jsonschema.validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "".join(f"[{p!r}]" for p in exc.absolute_path)
        raise ConfigError(f"not a valid JSON schema{' at ' + where if where else ''}: "
                          f"{exc.message}") from None
    made = cls(dict(schema))
    with _VALIDATORS_LOCK:
        if len(_VALIDATORS) > 256:
            _VALIDATORS.clear()
        _VALIDATORS[key] = made
    return made


def _json_candidates(text: str) -> Iterator[Any]:
    """Distinct JSON values ``text`` may hold, most likely first."""
    seen: set[str] = set()
    bodies = [text] + [body for _, body in _FENCE.findall(text)][::-1]
    chunks = [b.strip() for b in bodies]
    for body in bodies:
        chunks += _balanced_chunks(body)
    for chunk in chunks:
        for attempt in (chunk, _repair(chunk)):
            if not attempt or attempt in seen:
                continue
            seen.add(attempt)
            try:
                yield json.loads(attempt)
            except ValueError:
                continue
            break


def _describe(problems: list) -> str:
    from jsonschema.exceptions import best_match

    err = best_match(problems)
    path = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}"
                         for p in err.absolute_path)
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"the reply does not fit the schema at {path}: {err.message}{more}"
