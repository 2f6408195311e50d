"""The command line's JSON documents (``--json``): the one helper every command
prints its document through, and the error document.

Under ``--json`` a command prints exactly one JSON document on standard output
and nothing else: :func:`json_mode` sends everything else the command writes
(progress, per-episode lines, a subprocess's output) to standard error, and
:func:`emit` writes the document, named by its ``schema_id``
(``veriplan.<name>/<version>``, the same form as the MCP server's documents),
whose JSON schema is ``docs/schemas/<name>.v<version>.json``. An error becomes
one error document (:func:`emit_error`, schema ``cli_error``) with a typed
:class:`ErrorKind`, and the command's usual exit code.

Nothing here imports more than the standard library and ``veriplan.errors``:
``veriplan validate --json`` stays quick to start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import Iterator, Mapping
from enum import Enum, StrEnum
from pathlib import Path
from typing import TextIO

from veriplan import errors

SCHEMA_VERSION = 1

ERROR_DOCUMENT = "cli_error"


def schema_id(name: str) -> str:
    """``veriplan.<name>/<version>``: what a document's ``schema_id`` says."""
    return f"veriplan.{name}/{SCHEMA_VERSION}"


def schema_file(name: str) -> str:
    """The file in docs/schemas holding the schema of document ``name``."""
    return f"{name}.v{SCHEMA_VERSION}.json"


class ErrorKind(StrEnum):
    """Why a command under ``--json`` did not print its result."""

    USAGE = "usage"  # options that do not go together, a missing or unknown option
    MISSING_FILE = "missing-file"  # a file that cannot be opened
    TOO_LARGE = "too-large"  # a file over the size limit
    NOT_A_FILE = "not-a-file"  # a device, pipe or socket where a file is needed
    NOT_TEXT = "not-text"  # a file that is not UTF-8 text
    REFUSED = "refused"  # a path outside the directory it is confined to
    PDDL = "pddl"  # a PDDL file malformed, outside veriplan's subset, or inconsistent
    PLAN = "plan"  # a plan in which a line could not be read (where one must be)
    CONFIG = "config"  # a setting, config file or name that cannot be used
    PLANNER = "planner"  # an external planner missing, crashed or timed out
    DATA = "data"  # a dataset or results file missing or malformed
    RECORD = "record"  # a stored record this version cannot read
    MODEL = "model"  # an embedded model that cannot be fetched or is not prepared
    BACKEND = "backend"  # a language-model backend that failed
    ENVIRONMENT = "environment"  # an environment's simulator that died
    DEPENDENCY = "dependency"  # an optional package that is not installed
    ERROR = "error"  # any other error veriplan raised on purpose
    INTERRUPTED = "interrupted"  # stopped by the user (Ctrl-C)
    INTERNAL = "internal"  # a bug in veriplan


_FILE_REASONS: Mapping[str, ErrorKind] = {
    "missing": ErrorKind.MISSING_FILE, "too-large": ErrorKind.TOO_LARGE,
    "not-a-file": ErrorKind.NOT_A_FILE, "not-text": ErrorKind.NOT_TEXT,
    "outside": ErrorKind.REFUSED}

# The most specific class first.
_CLASSES: tuple[tuple[type[BaseException], ErrorKind], ...] = (
    (errors.PDDLParseError, ErrorKind.PDDL),
    (errors.PDDLSemanticError, ErrorKind.PDDL),
    (errors.PlanParseError, ErrorKind.PLAN),
    (errors.BackendUnavailableError, ErrorKind.DEPENDENCY),
    (errors.BackendError, ErrorKind.BACKEND),
    (errors.ModelError, ErrorKind.MODEL),
    (errors.RecordError, ErrorKind.RECORD),
    (errors.DataError, ErrorKind.DATA),
    (errors.ConfigError, ErrorKind.CONFIG),
    (errors.PlannerError, ErrorKind.PLANNER),
    (errors.EnvironmentDied, ErrorKind.ENVIRONMENT),
    (ImportError, ErrorKind.DEPENDENCY),  # the optional extras' errors are ImportErrors too
)


def error_kind(exc: BaseException) -> ErrorKind:
    """The kind of an error veriplan raised on purpose."""
    if isinstance(exc, errors.InputFileError):
        kind = _FILE_REASONS.get(exc.reason, ErrorKind.MISSING_FILE)
        return ErrorKind.PDDL if (kind is ErrorKind.NOT_TEXT and
                                  isinstance(exc, errors.PDDLInputFileError)) else kind
    for cls, kind in _CLASSES:
        if isinstance(exc, cls):
            return kind
    return ErrorKind.ERROR


class _Out:
    """Where documents go while a command runs under ``--json``, and whether one
    has gone there."""

    stream: TextIO | None = None
    emitted: bool = False
    broken: bool = False  # the reader of standard output went away


def _default(value: object) -> object:
    """JSON for what ``json`` does not know: paths, enums, sets, records."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if isinstance(value, tuple):
        return list(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)


def emit(name: str, payload: Mapping[str, object]) -> None:
    """Print document ``name``: ``schema_id`` first, then ``payload``; under
    :func:`json_mode`, the one document of this command (a second one is a bug)."""
    if _Out.stream is not None and _Out.emitted:
        raise RuntimeError(f"a second JSON document ({name}) from one command")
    doc = {"schema_id": schema_id(name), **{k: v for k, v in payload.items()
                                            if k != "schema_id"}}
    stream = _Out.stream or sys.stdout
    try:
        stream.write(json.dumps(doc, indent=2, default=_default) + "\n")
        stream.flush()
    except BrokenPipeError:  # the reader went away (| head): json_mode cleans up
        _Out.broken = True
        raise
    _Out.emitted = True


def emit_error(command: str, kind: ErrorKind, message: str, exit_code: int, *,
               exc: BaseException | None = None) -> None:
    """Print the error document, unless the command printed its own already."""
    if _Out.stream is not None and _Out.emitted:
        return
    where: dict[str, object] = {"file": None, "line": None, "col": None}
    if isinstance(exc, errors.SourceError):
        where = {"file": exc.file, "line": exc.line, "col": exc.col}
    emit(ERROR_DOCUMENT, {"command": command, "exit_code": exit_code,
                          "error": {"kind": kind, "message": message, **where}})


@contextlib.contextmanager
def json_mode() -> Iterator[None]:
    """Run a command whose standard output is its one document: while it runs,
    what it (or a subprocess) writes to standard output goes to standard error;
    :func:`emit` writes to the real standard output."""
    real = sys.stdout
    try:
        fd = real.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    saved: int | None = None
    doc: TextIO = real
    if fd == 1:  # the process's own standard output: move it at the descriptor level
        try:
            real.flush()
            saved = os.dup(1)
            os.dup2(2, 1)
            doc = open(saved, "w", encoding=getattr(real, "encoding", None) or "utf-8",  # noqa: SIM115
                       closefd=False)
        except OSError:
            saved, doc = None, real
    _Out.stream, _Out.emitted, _Out.broken = doc, False, False
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _Out.stream = None
        if _Out.broken:  # what is left goes nowhere, now and at the interpreter's exit
            if saved is not None:
                with contextlib.suppress(OSError, ValueError):
                    doc.close()
            _quiet(saved if saved is not None else fd)
        if saved is not None:
            with contextlib.suppress(OSError, ValueError):
                real.flush()
                doc.flush()
            os.dup2(saved, 1)
            os.close(saved)


def _quiet(fd: int | None) -> None:
    """Point ``fd`` (the closed pipe) at /dev/null."""
    if fd is None:
        return
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def emitted() -> bool:
    """Whether the command printed its document (for the error path)."""
    return _Out.emitted
