"""What a ``veriplan mcp`` server may do: the roots its path arguments must stay
in, the size and time limits of one call, the language-model backend of
``run_method``. No tool runs model-written code (AutoToS is not offered).

Nothing here imports the MCP SDK: the checks are plain Python, tested alone.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from veriplan.core.arguments import ArgumentError, refused_path
from veriplan.errors import VeriplanError
from veriplan.pddl.inputs import check_path, size_text

#: The largest text (a domain, problem, plan or config given inline, or a file
#: named by path) one call may hand in, unless the server was started with another.
DEFAULT_MAX_BYTES = 4 << 20
#: The longest a call may run (seconds), unless the server was started with another.
DEFAULT_TIME_LIMIT = 60.0
#: The most plans one validate_batch call may judge.
DEFAULT_MAX_ITEMS = 10_000
#: The most steps of a trace or ground actions one call returns.
DEFAULT_MAX_RESULTS = 1_000
#: The most calls at work at once (a call past its time limit that has not yet
#: reached a point where it can stop still counts): more are refused as busy.
DEFAULT_MAX_CALLS = 8


class ToolInputError(ArgumentError):
    """An argument a tool refuses (a path outside the roots, an input over the
    size limit, two ways of giving one thing, a number out of the contract's
    range): the call's error, never the server's."""


@dataclass(frozen=True)
class Roots:
    """The directories a server's path arguments must lead into, through every
    symlink and ``..`` (each root itself resolved when the server starts)."""

    dirs: tuple[str, ...]

    @classmethod
    def of(cls, dirs: Sequence[str | os.PathLike[str]]) -> Roots:
        resolved = []
        for d in dirs or (os.curdir,):
            real = os.path.realpath(os.fspath(d))
            if not os.path.isdir(real):
                raise VeriplanError(f"--root {os.fspath(d)} is not a directory")
            resolved.append(real)
        return cls(tuple(dict.fromkeys(resolved)))

    def resolve(self, path: str, what: str) -> str:
        """``path`` (relative paths are taken from the first root) resolved, if it
        leads inside a root; else a :class:`ToolInputError` that names the path
        (as given: never what the file holds, never a root's absolute path; the same
        message a batch item gets)."""
        if not isinstance(path, str) or not path:
            raise ToolInputError(f"the {what} path must be a non-empty string")
        try:
            p = check_path(path, what)
        except VeriplanError as exc:
            raise ToolInputError(str(exc)) from None
        full = os.path.realpath(os.path.join(self.dirs[0], p))
        for root in self.dirs:
            if full == root or full.startswith(root.rstrip(os.sep) + os.sep):
                return full
        raise ToolInputError(refused_path(
            path, what, "the server's roots",
            "start the server with --root DIR to allow another directory"))

    def relative(self, full: str) -> str:
        """A resolved path as the client should see it: relative to its root."""
        for root in self.dirs:
            if full.startswith(root.rstrip(os.sep) + os.sep):
                return os.path.relpath(full, root)
        return full


@dataclass(frozen=True)
class ServerConfig:
    """Everything a server was started with. ``backend`` and ``backend_options``
    are what ``run_method`` builds its language model from (the API key is never
    echoed: :meth:`describe` leaves it out)."""

    roots: Roots = field(default_factory=lambda: Roots.of([os.curdir]))
    max_bytes: int = DEFAULT_MAX_BYTES
    time_limit: float = DEFAULT_TIME_LIMIT
    max_items: int = DEFAULT_MAX_ITEMS
    max_results: int = DEFAULT_MAX_RESULTS
    backend: str | None = None
    backend_options: Mapping[str, str] = field(default_factory=dict)
    method_time_limit: float = 600.0
    lenient: bool = False
    max_calls: int = DEFAULT_MAX_CALLS
    slots: threading.BoundedSemaphore = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "slots", threading.BoundedSemaphore(self.max_calls))

    def check_text(self, text: str, what: str) -> str:
        if len(text) > self.max_bytes or len(text.encode("utf-8", "surrogatepass")) \
                > self.max_bytes:
            raise ToolInputError(f"the {what} is larger than the server's limit of "
                                 f"{size_text(self.max_bytes)} (--max-bytes)")
        return text

    def describe(self) -> dict[str, object]:
        """The limits and settings a client may know (no secret: the backend's
        options are named, their values are not shown for keys and URLs)."""
        return {
            "roots": list(self.roots.dirs), "max_bytes": self.max_bytes,
            "time_limit": self.time_limit, "max_items": self.max_items,
            "max_results": self.max_results, "backend": self.backend,
            "model": self.backend_options.get("model"),
            "method_time_limit": self.method_time_limit, "lenient": self.lenient,
            "max_calls": self.max_calls,
        }
