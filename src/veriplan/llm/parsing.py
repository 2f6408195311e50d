"""Getting structure out of model answers: the last fenced code block, a JSON
object (with a tolerant repair pass), or a list of action lines. A failure is
an :class:`LLMOutputParseError` carrying the raw text."""

from __future__ import annotations

import json
import re

from veriplan.errors import LLMOutputParseError

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
