"""The one exception hierarchy of veriplan.

Misuse and infrastructure faults are exceptions; a bad plan or a bad model
answer is a returned value (see :class:`veriplan.verify.ValidationResult`).
Every message names the offending thing and, where there is one, the fix.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Protocol

from veriplan.lazyre import LazyPattern

#: The longest name or token from the input (an object of a plan, a word of a PDDL
#: file, a key of a batch line) a message shows whole: a longer one is shown by its
#: start and its length (:func:`shown`), never whole.
SHOWN_MAX = 200
#: How many of its first characters a name cut by :func:`shown` keeps.
SHOWN_HEAD = 40

# A run of characters a name may hold (no space, bracket, quote, colon or separator) over
# SHOWN_MAX: a word :func:`bounded` cuts.
_LONG_WORD = LazyPattern(r"[^\s()'\"\[\]{},;:]{" + str(SHOWN_MAX + 1) + ",}")


def shown(text: str, limit: int = SHOWN_MAX) -> str:
    """``text`` as a message shows a name from the input: whole when it has at most
    ``limit`` characters, else its start and its length, ``"aaaa…" (52,428,800
    characters)``. Every message that echoes a name, token or line it was given
    passes it through here (or :func:`bounded`)."""
    if len(text) <= limit:
        return text
    return f'"{text[:SHOWN_HEAD]}…" ({len(text):,} characters)'


def bounded(message: str) -> str:
    """``message`` with every word over :data:`SHOWN_MAX` characters cut by
    :func:`shown`: what every :class:`VeriplanError` does to its message."""
    if len(message) <= SHOWN_MAX:
        return message
    return _LONG_WORD.sub(lambda m: shown(m.group()), message)


class StaleUnitLike(Protocol):
    """What :class:`StaleUnitsError` reads of a stale unit."""

    @property
    def id(self) -> str: ...
    @property
    def dataset(self) -> str: ...
    @property
    def stored_version(self) -> str: ...
    @property
    def current_version(self) -> str: ...


class VeriplanError(Exception):
    """Base class of every error veriplan raises on purpose. A message never holds
    a long name whole (:func:`bounded`): a 50 MB object name is shown by its start
    and length."""

    def __init__(self, *args: object) -> None:
        if args and type(args[0]) is str and len(args[0]) > SHOWN_MAX:
            args = (bounded(args[0]), *args[1:])
        super().__init__(*args)


class SourceError(VeriplanError):
    """An error at a location in a text (a PDDL file, a plan, a config)."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        col: int | None = None,
    ) -> None:
        self.message = bounded(message)
        self.file = file
        self.line = line
        self.col = col
        super().__init__(self._render())

    @property
    def location(self) -> str:
        parts = [self.file or "<text>"]
        if self.line is not None:
            parts.append(str(self.line))
            if self.col is not None:
                parts.append(str(self.col))
        return ":".join(parts)

    def _render(self) -> str:
        return f"{self.location}: {self.message}"


class PDDLParseError(SourceError):
    """A PDDL text that is malformed or outside the supported subset."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        col: int | None = None,
        requirement: str | None = None,
    ) -> None:
        self.requirement = requirement
        super().__init__(message, file=file, line=line, col=col)


class UnsupportedRequirementError(PDDLParseError):
    """A PDDL construct outside veriplan's subset (names the requirement)."""


class InputFileError(SourceError):
    """A file veriplan cannot or will not read as input, named but never quoted.

    ``reason`` says why: ``missing`` (cannot be opened: absent, a directory,
    permission denied), ``not-a-file`` (a device, pipe or socket where a regular
    file is needed), ``too-large`` (over the size limit), ``outside`` (outside the
    base directory a confined batch may read), ``not-text`` (not UTF-8 text)."""

    def __init__(self, message: str, *, file: str | None = None, reason: str = "missing",
                 line: int | None = None, col: int | None = None) -> None:
        self.reason = reason
        super().__init__(message, file=file, line=line, col=col)


class PDDLInputFileError(InputFileError, PDDLParseError):
    """An :class:`InputFileError` on a PDDL file (also a :class:`PDDLParseError`,
    which callers of the PDDL readers catch)."""

    def __init__(self, message: str, *, file: str | None = None, reason: str = "missing",
                 line: int | None = None, col: int | None = None) -> None:
        self.requirement = None
        InputFileError.__init__(self, message, file=file, reason=reason, line=line, col=col)


class PDDLSemanticError(VeriplanError):
    """A well-formed PDDL task that cannot be turned into a model
    (for example a problem naming an object its domain does not know)."""


class NumericTaskError(PDDLSemanticError):
    """A classical-only operation (grounding, search, a bitset goal test) asked of
    a task with numeric fluents: veriplan validates and simulates such tasks, but
    its search does not plan over numbers."""


class TemporalTaskError(NumericTaskError):
    """A classical-only operation asked of a temporal task (durative actions, timed
    initial literals): veriplan validates its timed plans, but its search does not
    plan in time. (A :class:`NumericTaskError`, as a temporal task is judged by the
    numeric evaluation.)"""


class PlanParseError(SourceError):
    """A plan text in which a line could not be read (raised on request only:
    :func:`veriplan.planio.parse_plan` returns unread lines as values)."""


class ConfigError(VeriplanError):
    """A configuration file (for example a PlanBench YAML config) that is
    missing keys or malformed."""


class PlannerError(VeriplanError):
    """An external planner that is missing, crashed or timed out."""


class DataError(VeriplanError):
    """A dataset directory or file that is missing or malformed."""


class RecordError(DataError):
    """A stored record (a run store's unit, a results file) with a field this
    version cannot read; names the record, the field and what to do."""


class StaleUnitsError(RecordError):
    """Stored units that ran on another version of their dataset than the one
    a resumed sweep would run: going on would pool results of two datasets.
    ``units`` holds each unit's id, dataset and both versions."""

    def __init__(self, store: str | os.PathLike[str], units: Mapping[str, StaleUnitLike]) -> None:
        self.units = dict(units)
        first = next(iter(self.units.values()))
        datasets = sorted({u.dataset for u in self.units.values()})
        super().__init__(
            f"{len(self.units)} unit(s) in {store} ran on another version of "
            f"{', '.join(datasets)} (e.g. unit {first.id}: stored on "
            f"{first.stored_version}, the data is now {first.current_version}); run again "
            "with --rerun-stale to run them on the current data (their records are "
            "replaced), or give another --out")


class EnvironmentDied(VeriplanError):
    """An environment's simulator process (TextWorld's Python, ScienceWorld's Java)
    that ended or stopped answering mid-episode; the episode cannot go on."""


class VeriplanWarning(UserWarning):
    """Base class of the warnings veriplan issues."""


class PDDLLenientWarning(VeriplanWarning):
    """A PDDL defect accepted because the file was loaded with ``strict=False``."""


class ModelError(VeriplanError):
    """An embedded model that cannot be fetched, joined or verified, or a
    model file that does not exist."""


class BackendError(VeriplanError):
    """A language-model backend failed (after any retries)."""

    retryable = False


class BackendUnavailableError(BackendError):
    """A backend whose Python package is missing (names the install command)."""


class AuthenticationError(BackendError):
    """Missing or rejected credentials (names the setting to fix)."""


class BadRequestError(BackendError):
    """The backend rejected the request itself (model name, context length, ...)."""


class RateLimitError(BackendError):
    """Rate limited; ``retry_after`` seconds if the server said."""

    retryable = True

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)


class EndpointUnreachableError(BackendError):
    """Nothing answers at the backend's address: the connection was refused,
    the host name does not resolve, or the host cannot be reached. Not
    retried (a server that is not running does not start by waiting);
    ``url`` is the address tried."""

    def __init__(self, message: str, url: str = "") -> None:
        self.url = url
        super().__init__(message)


class TransientBackendError(BackendError):
    """A 5xx, a timeout or a connection dropped mid-request: worth retrying."""

    retryable = True


class ReplayMissError(BackendError):
    """A replay cassette has no response for this request."""


class LLMOutputParseError(VeriplanError):
    """A model answer without the expected structure; ``raw`` is the answer."""

    def __init__(self, message: str, raw: str, expected: str) -> None:
        self.raw = raw
        self.expected = expected
        super().__init__(message)
