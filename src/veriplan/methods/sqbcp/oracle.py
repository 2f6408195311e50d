"""A person as the oracle: free-text answers ("yes", "no", "I have margarine
instead", "I don't know") read into the oracle's answers."""

from __future__ import annotations

import re
from collections.abc import Callable

from veriplan.domains.hidden import Answer
from veriplan.errors import VeriplanError

_YES = re.compile(r"^\s*(y|yes|yeah|yep|sure|of course|i do|i have( it| one)?|it is|"
                  r"true|correct|right)\b", re.I)
_NO = re.compile(r"^\s*(n|no|nope|not really|i don'?t( have)?|i do not|it is not|"
                 r"it isn'?t|false|none)\b", re.I)
_UNKNOWN = re.compile(r"^\s*(\?+|i don'?t know|i do not know|not sure|no idea|unsure|"
                      r"maybe|dunno|can'?t say)\b", re.I)
_INSTEAD = re.compile(r"(?:i have|i've got|i could use|use|there is|there's|only)\s+"
                      r"(?:some\s+|a\s+|an\s+)?(.+?)\s*(?:instead\b.*|$)", re.I)


class EmptyAnswerError(VeriplanError):
    """An empty answer: the question is asked again (nothing is recorded)."""


def read_answer(text: str, subject: str) -> Answer:
    """A person's free-text answer about ``subject``. A substitution ("I have
    margarine instead", "no, only a hand saw") is a "no" with the substitute;
    an answer that says neither yes nor no is uninformative."""
    raw = " ".join(text.split())
    if not raw:
        raise EmptyAnswerError("the answer is empty: type yes, no, what you have instead, "
                               "or \"I don't know\"")
    if _UNKNOWN.match(raw):
        return Answer("unknown", raw)
    instead = re.search(r"\binstead\b|\bonly\b|\bbut i have\b|\bbut there is\b", raw, re.I)
    if instead:
        tail = re.split(r"\bbut\b", raw, maxsplit=1, flags=re.I)[-1]
        m = _INSTEAD.search(tail)
        if m:
            sub = m.group(1).strip(" .,!;")
            if sub and sub.lower() != subject.lower():
                return Answer("no", raw, subject, (sub,))
    if _NO.match(raw):
        return Answer("no", raw, subject)
    if _YES.match(raw):
        return Answer("yes", raw, subject)
    return Answer("unknown", raw)


class PersonOracle:
    """Asks a person through ``prompt(question) -> text``; counts calls and
    keeps every question and answer (what was learned, even when the run is
    interrupted)."""

    def __init__(self, prompt: Callable[[str], str],
                 on_empty: Callable[[str], None] | None = None) -> None:
        self.prompt = prompt
        self.on_empty = on_empty
        self.calls = 0
        self.log: list[tuple[str, Answer]] = []

    def ask(self, question: str) -> Answer:
        subject = question.rsplit("(about: ", 1)[-1].rstrip(")?. ") if "(about: " in question \
            else question
        while True:
            try:
                answer = read_answer(self.prompt(question), subject)
                break
            except EmptyAnswerError as exc:
                if self.on_empty is not None:
                    self.on_empty(str(exc))
        self.calls += 1
        self.log.append((question, answer))
        return answer
