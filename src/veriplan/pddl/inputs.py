"""Reading input files (PDDL, plans, PlanBench configs) within bounds.

Every file veriplan reads as input goes through :func:`read_bytes`: a size limit
(:data:`DEFAULT_MAX_BYTES` unless the caller gives one; ``--max-bytes`` on the
command line), regular files only (a device such as ``/dev/zero`` never ends and
is refused; a pipe is read only where the caller allows it, up to the limit),
and errors that name the file but never quote what it holds
(:class:`~veriplan.errors.InputFileError`). :func:`decode` turns the bytes into
text: UTF-8 only, a leading byte-order mark dropped.
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING

from veriplan.errors import InputFileError
from veriplan.lazyre import LazyPattern

if TYPE_CHECKING:  # (pathlib is not imported: a batch run does without its start-up)
    from typing import BinaryIO

#: The largest file (and ``--batch`` line) read unless told otherwise: 64 MiB.
DEFAULT_MAX_BYTES = 64 << 20
BOM = "\ufeff"

_SIZE = LazyPattern(r"\s*(\d+)\s*([kmg]?)(?:i?b)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``"1000"``, ``"64K"``, ``"64M"``, ``"1G"`` (powers of 1024) to bytes;
    ValueError for anything else or for zero."""
    m = _SIZE.fullmatch(text)
    if m is None:
        raise ValueError(f"not a size: {text!r} (use bytes, or a number with K, M or G)")
    n = int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]
    if n <= 0:
        raise ValueError("the size limit must be at least 1 byte")
    return n


def size_text(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def check_path(path: str | os.PathLike, what: str,
               error: type[InputFileError] = InputFileError) -> str:
    """``path`` as a str, or the error for a path no file can have (a NUL byte,
    text the file system cannot encode)."""
    p = os.fspath(path)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if "\x00" in p:
        raise error(f"cannot read {what}: the path holds a NUL byte", file=p.replace("\x00", "\\0"),
                    reason="missing")
    try:
        os.fsencode(p)
    except UnicodeEncodeError:
        raise error(f"cannot read {what}: the path holds text no file name can "
                    "(a lone surrogate)", file=p, reason="missing") from None
    return p


def too_large(path: str, what: str, limit: int,
              error: type[InputFileError] = InputFileError) -> InputFileError:
    return error(f"{what} is larger than the limit of {size_text(limit)} "
                 "(--max-bytes to change it)", file=path, reason="too-large")


def read_bytes(path: str | os.PathLike, *, what: str = "file", max_bytes: int | None = None,
               pipes: bool = False, error: type[InputFileError] = InputFileError) -> bytes:
    """The bytes of file ``path``, at most ``max_bytes`` (default
    :data:`DEFAULT_MAX_BYTES`). A regular file is read; a pipe only when
    ``pipes`` (up to the limit); a directory, device or socket is refused.
    Raises ``error`` (an :class:`InputFileError`) naming the file, never its
    contents."""
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    p = check_path(path, what, error)
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(p, flags | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error(f"cannot read {what}: {exc.strerror}", file=p, reason="missing") from None
    try:
        st = os.fstat(fd)
        mode = st.st_mode
        if stat.S_ISREG(mode):
            if st.st_size > limit:
                raise too_large(p, what, limit, error)
        elif stat.S_ISDIR(mode):
            raise error(f"cannot read {what}: it is a directory", file=p, reason="missing")
        elif stat.S_ISFIFO(mode) and pipes:
            os.set_blocking(fd, True)
        else:
            kind = ("a pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                    else "a device")
            raise error(f"cannot read {what}: it is {kind}, not a regular file",
                        file=p, reason="not-a-file")
        chunks: list[bytes] = []
        size = 0
        whole = st.st_size if stat.S_ISREG(mode) else -1
        # A regular file is read in one read() of its size (and one byte more, to see
        # it grew): no buffer of a megabyte for a file of a few hundred bytes (the
        # interpreter maps one for it, then shrinks and unmaps it).
        want = min(1 << 20, limit + 1, whole + 1) if whole >= 0 else min(1 << 20, limit + 1)
        try:
            while chunk := os.read(fd, want):
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    raise too_large(p, what, limit, error)
                if size == whole:  # a regular file read to the size it had: done
                    break
                want = min(1 << 20, limit + 1 - size)
        except OSError as exc:
            raise error(f"cannot read {what}: {exc.strerror}", file=p, reason="missing") from None
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_stream(stream: BinaryIO, *, what: str = "standard input", name: str = "<stdin>",
                max_bytes: int | None = None,
                error: type[InputFileError] = InputFileError) -> bytes:
    """Everything ``stream`` holds, up to ``max_bytes`` (else ``error``)."""
    limit = DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise too_large(name, what, limit, error)
    return data


def decode(data: bytes, path: str, what: str = "file",
           error: type[InputFileError] = InputFileError) -> str:
    """UTF-8 text of ``data`` without a leading byte-order mark; ``error`` (reason
    ``not-text``, with the line and column of the first bad byte) otherwise."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
        line = data.count(b"\n", 0, start) + 1
        col = len(data[data.rfind(b"\n", 0, start) + 1:start].decode("utf-8", "replace")) + 1
        raise error(f"{what} is not UTF-8 text (is it a binary file?)", file=path,
                    line=line, col=col, reason="not-text") from None
    return text[1:] if text[:1] == BOM else text


def read_text(path: str | os.PathLike, *, what: str = "file", max_bytes: int | None = None,
              pipes: bool = False, error: type[InputFileError] = InputFileError) -> str:
    """:func:`read_bytes` then :func:`decode`."""
    data = read_bytes(path, what=what, max_bytes=max_bytes, pipes=pipes, error=error)
    return decode(data, os.fspath(path), what, error)  # (a Path's fspath is its str)


def confined(path: str, base: str) -> bool:
    """Whether ``path`` (relative paths taken from ``base``) resolves, through
    every symlink and ``..``, to a place inside directory ``base`` (itself
    resolved)."""
    full = os.path.realpath(os.path.join(base, path))
    root = os.path.realpath(base)
    return full == root or full.startswith(root.rstrip(os.sep) + os.sep)
