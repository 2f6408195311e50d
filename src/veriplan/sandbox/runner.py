"""The parent side of the sandbox: one sandboxed child process per job.

The child writes its answers as JSON lines on a pipe (the only data that
comes back; nothing it leaves in its scratch folder is read, and the folder is
a tmpfs only the sandbox sees) and marks each call of untrusted code on a
shared heartbeat (:class:`Job`). The heartbeat only says *which* call runs:
the time is kept here, in the parent. Once the child has booted (its first
line, written before any untrusted code runs, is on the pipe) the job must
show progress (a new heartbeat, a new line) at least every ``call_limit``
seconds, or ``call_limit`` + :data:`IDLE_GRACE` while the heartbeat says no
call runs, whatever the child wrote on it; a reader may also give a stretch
of the job a deadline of its own (:meth:`Job.expect`). So code that zeroes
the heartbeat and loops in C is still killed within its call's limit.

The answer pipe is read in pieces of at most :data:`READ` bytes; an
incomplete line is kept as a list of pieces (the newline is looked for in the
new piece only) and is never longer than ``Limits.line_mb``, the whole answer
never more than ``Limits.answer_mb``: past either the child is killed and the
outcome is ``too_large``. The log (the child's standard output and error) goes
to a file the child's file-size limit bounds; only its last bytes are read.
:func:`run_job` is a one-shot job: the target's return value comes back as an
:class:`Outcome`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import mmap
import os
import resource
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from veriplan.core.jsonvalue import JSONValue
from veriplan.sandbox import bwrap

CLONE_NEWNET = 0x40000000
IDLE = 0
# the shared header: the call running (0: none), the stream offset of the line
# buffer, the bytes in it, the last call started (kept after the call ends)
HEADER, BUFFER = 32, 256 * 1024  # the child's shared heartbeat and line buffer
PIECE = 32 * 1024  # answer lines parsed at a time (see Job._parse_piece)
READ = 1 << 20  # most bytes read from the answer pipe at a time
SHARED = HEADER + BUFFER
ROLE_BIT = 1 << 23  # heartbeat: (sequence << 24) | (role << 23) | index
BOOTED = b'["B"]\n'  # the child's first line, before any untrusted code runs
IDLE_GRACE = 1.0  # seconds past call_limit for the harness's own work between calls

# The child's answer lines are read as JSON values (``json.loads``): each line of
# :meth:`Job.next` and :attr:`Outcome.result` is one; a line that is not JSON is
# its text's repr (a ``str``).


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 660.0  # the whole job (a search limit of 600 s fits inside)
    cpu_seconds: int = 650
    memory_mb: int = 2048  # address space
    file_mb: int = 64  # largest file the child may write
    scratch_mb: int = 256  # the whole scratch folder (a tmpfs)
    processes: int = 16  # RLIMIT_NPROC for the job's own user id (threads count)
    output_bytes: int = 65536  # printed text kept for the report; the rest is counted
    network_namespace: bool = True  # process sandbox only: also cut the network off
    answer_mb: int = 1024  # most answer data the parent accepts from one job
    line_mb: int = 64  # longest answer line the parent accepts (held in its memory)


class Category(StrEnum):
    """What stopped a job (:attr:`Outcome.category`)."""

    TIMEOUT = "timeout"  # the job's wall clock
    CPU_LIMIT = "cpu_limit"
    MEMORY = "memory"
    EXIT = "exit"  # the code called sys.exit
    EXCEPTION = "exception"
    UNSERIALIZABLE = "unserializable"  # the result is not JSON
    CRASH = "crash"  # the process died of a signal
    NO_RESULT = "no_result"  # no answer, or a malformed one
    TOO_LARGE = "too_large"  # more answer data than Limits allow: killed at the cap


@dataclass
class Outcome:
    """``category`` is None when the target returned (``result``); otherwise
    what stopped the job (:class:`Category`)."""

    category: Category | None
    result: JSONValue = None
    detail: str = ""
    seconds: float = 0.0
    stdout: str = ""
    stdout_size: int = 0
    network_isolated: bool = False
    returncode: int | None = None
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.category is None


class StreamError(Exception):
    """The job's answer stream stopped: see the subclasses."""


class Stalled(StreamError):
    """A call of untrusted code ran past its limit (the job showed no
    progress for longer than the call limit); the job was killed. ``code``:
    the call that ran, as the heartbeat named it."""

    def __init__(self, code: int, seconds: float, message: str = "") -> None:
        super().__init__(message or f"a call ran for {seconds:.1f} s")
        self.code, self.seconds = code, seconds

    @property
    def role(self) -> str:
        return "goal" if self.code & ROLE_BIT else "succ"

    @property
    def index(self) -> int:
        return self.code & (ROLE_BIT - 1)


class Overran(Stalled):
    """A stretch of the job ran past the deadline the reader gave it
    (:meth:`Job.expect`); the job was killed."""

    def __init__(self, code: int, seconds: float) -> None:
        super().__init__(code, seconds, f"the stretch ran for {seconds:.1f} s")


class Ended(StreamError):
    """The stream ended without the expected line. ``kind``: ``exit`` (the
    process ended; ``code`` is the heartbeat at that moment, non-zero when it
    died inside a call), ``timeout`` (the job's wall clock, killed),
    ``too_large`` (more answer data than allowed, killed), ``malformed``."""

    def __init__(self, kind: str, detail: str, code: int = 0,
                 returncode: int | None = None) -> None:
        super().__init__(detail)
        self.kind, self.detail, self.code, self.returncode = kind, detail, code, returncode

    @property
    def role(self) -> str:
        return "goal" if self.code & ROLE_BIT else "succ"


def _memfd(name: str, data: bytes) -> int:
    fd = os.memfd_create(name, 0)
    _write_all(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


try:  # several times faster on lists of numbers; optional (the ``sandbox`` extra)
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover - without orjson
    _fast_loads = None


# 19 digits at the start of a number (after a bracket, comma, colon, white space
# or minus: not the digits after a float's point): an integer that may not fit in
# 64 bits, which orjson would read as a float. Found by mapping every byte to its
# class (``s`` such a start, ``d`` a digit, ``x`` anything else) and searching the
# classes for ``s`` and 19 ``d``: the same test as the regular expression
# ``[\[,:\s-][0-9]{19}``, five times faster on the answer stream.
_CLASSES = bytes(ord("d") if chr(b).isdigit() and b < 128 else
                 ord("s") if bytes([b]) in b"[,:- \t\n\r\f\v" else ord("x")
                 for b in range(256))
_LONG = b"s" + b"d" * 19


def _long_number(data: bytes) -> bool:
    return _LONG in data.translate(_CLASSES)


def _loads(data: bytes) -> JSONValue:
    """JSON from the child (untrusted): orjson where installed; what it
    refuses (NaN, infinities, invalid UTF-8, deep nesting) and any text with
    an integer that might not fit in 64 bits (which it would read as a float)
    is read by the standard library, as before, so the values are the same."""
    if _fast_loads is not None and not data[:1].isdigit() and not _long_number(data):
        try:
            return _fast_loads(data)
        except ValueError:  # orjson.JSONDecodeError is one
            pass
    return json.loads(data.decode("utf-8", "replace"))


class _Bad(str):
    """A line that is not JSON (kept so that the reader sees it in order)."""


class Job:
    """One sandboxed child running ``target(payload)`` ("module:function",
    trusted code); its lines are read with :meth:`next`."""

    def __init__(self, target: str, payload: Mapping[str, object], limits: Limits = Limits(),
                 call_limit: float | None = None) -> None:
        self._init_reading(limits, call_limit)
        self.mode = bwrap.mode()
        if self.mode == "bwrap":
            bwrap.bwrap_path()  # refuse before anything is set up
        self.start = time.perf_counter()
        self.deadline = self.start + limits.wall_seconds
        self.killed: str | None = None
        self._eof = False
        self._stalled: Stalled | None = None
        self._seen: tuple[int, ...] = ()  # the shared header when last seen changing ...
        self._seen_at = 0.0  # ... and when (the parent's clock)
        self._expect: float | None = None  # a deadline for the current stretch (expect)
        self._expect_limit = 0.0
        job = json.dumps({"target": target, "payload": payload,
                          "output_bytes": limits.output_bytes}).encode()
        fds: list[int] = []
        try:
            job_fd = _memfd("veriplan-job", job)
            fds.append(job_fd)
            beat_fd = _memfd("veriplan-shared", bytes(SHARED))
            fds.append(beat_fd)
            self.beat = mmap.mmap(beat_fd, SHARED)
            read_fd, write_fd = os.pipe()
            fds.append(write_fd)
            self.fd = read_fd
            with contextlib.suppress(OSError):
                fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 1 << 20)
            self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
            self.scratch: str | None = None
            child = [str(write_fd), str(beat_fd), str(job_fd)]
            if self.mode == "bwrap":
                program = bwrap.seccomp_program()
                seccomp_fd = _memfd("veriplan-seccomp", program) if program else None
                if seccomp_fd is not None:
                    fds.append(seccomp_fd)
                # as root a user id of its own; otherwise the caller's (mapped)
                self.uid = bwrap.job_uid() if os.geteuid() == 0 else os.geteuid()
                cmd = bwrap.command(self.uid, limits.scratch_mb, seccomp_fd,
                                    [*child, bwrap.SCRATCH])
                self.seccomp = program is not None
            else:
                self.scratch = tempfile.mkdtemp(prefix="veriplan-sandbox-")
                self.uid, self.seccomp = -1, False
                cmd = [sys.executable, "-I", "-B", "-c", bwrap.BOOT,
                       os.path.dirname(bwrap.package_dir()), "-1", *child, self.scratch]
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=self.stderr, stderr=self.stderr,
                pass_fds=tuple(fds), close_fds=True, preexec_fn=self._preexec,
                cwd=self.scratch or "/", env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
        finally:
            for fd in fds:
                os.close(fd)

    def _init_reading(self, limits: Limits, call_limit: float | None = None) -> None:
        """The state of the answer stream's reading."""
        self.limits, self.call_limit = limits, call_limit
        self.received = 0
        self._partial: list[bytes] = []  # the incomplete last line, in pieces
        self._partial_size = 0
        self._lines: deque[JSONValue] = deque()
        self._pending: deque[tuple[bytes, int]] = deque()  # complete lines not yet parsed
        self._booted = False  # the child's first line has come: untrusted code may run

    @classmethod
    def reader(cls, limits: Limits = Limits()) -> Job:
        """Only the line reading, without a process (for tests and
        benchmarks: feed it with ``_take``; the stream has no boot line)."""
        job = cls.__new__(cls)
        job._init_reading(limits)
        job._booted = True
        return job

    @property
    def partial(self) -> bytes:
        """The incomplete last line received so far."""
        return b"".join(self._partial)

    def _preexec(self) -> None:
        os.setsid()
        lim, mb = self.limits, 1024 * 1024
        resource.setrlimit(resource.RLIMIT_CPU, (lim.cpu_seconds, lim.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (lim.memory_mb * mb,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (lim.file_mb * mb,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if self.mode == "bwrap":
            if os.geteuid() == 0:  # counted for the job's own user id (the child switches
                #                    to it); another user's limit would count all its processes
                resource.setrlimit(resource.RLIMIT_NPROC, (lim.processes, lim.processes))
        else:
            resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))  # not enforced for root
            if lim.network_namespace:
                try:
                    import ctypes

                    ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNET)
                except Exception:  # noqa: BLE001 - the audit hook still refuses sockets
                    pass

    @property
    def network_isolated(self) -> bool:
        """Known from how the job was started, not from anything the child says."""
        return self.mode == "bwrap"

    def heartbeat(self) -> int:
        return struct.unpack_from("<Q", self.beat, 0)[0]

    def expect(self, seconds: float | None) -> None:
        """From now (or from the child's boot, if it has not booted yet), the
        job has ``seconds`` of the parent's clock until the reader calls this
        again (e.g. one instance's search, from the line that starts it: the
        child must flush that line); past it, with no answer waiting, the job
        is killed and :meth:`next` raises :class:`Overran` after the lines
        written before. None: no deadline."""
        self._expect_limit = seconds or 0.0
        self._expect = None if seconds is None else time.perf_counter() + seconds

    @property
    def lines(self) -> deque[JSONValue]:
        """The lines read and parsed but not yet taken (a reader in a hurry may
        pop them itself; :meth:`next` reads more when there are none)."""
        return self._lines

    def next(self) -> JSONValue:
        """The next line, parsed; raises :class:`Stalled` (after killing the
        job) when a call runs past ``call_limit``, :class:`Ended` otherwise."""
        while not self._lines:
            if self._pending:
                self._parse_piece()
            else:
                self._fill()
        return self._lines.popleft()

    def _parse_piece(self) -> None:
        """The next :data:`PIECE` bytes or so of the lines received (whole
        lines): parsed when the reader needs them, so that their values are
        still in the processor's cache when it takes them (parsing a megabyte
        at a time made the AutoToS replay a sixth slower)."""
        block, start = self._pending[0]
        if len(block) - start > PIECE:
            cut = block.rfind(b"\n", start, start + PIECE)
            if cut < 0:  # a line longer than a piece
                cut = block.find(b"\n", start + PIECE)
            if cut >= 0:
                self._pending[0] = (block, cut + 1)
                self._parse_block(block[start:cut])
                return
        self._pending.popleft()
        self._parse_block(block[start:] if start else block)

    def _parse_block(self, block: bytes) -> None:
        """Complete lines separated by newlines: as one array (the newlines
        made commas) when none is empty, else as :meth:`_parse` reads them."""
        if not block:
            return
        try:
            self._lines.extend(_loads(b"[" + block.replace(b"\n", b",") + b"]"))
            return
        except ValueError:
            pass
        lines = [p for p in block.split(b"\n") if p]
        if lines:
            self._parse(lines)

    def _parse(self, lines: list[bytes]) -> None:
        """All complete lines at once (one parse), else line by line."""
        try:
            self._lines.extend(_loads(b"[" + b",".join(lines) + b"]"))
            return
        except ValueError:
            pass
        for line in lines:
            try:
                self._lines.append(_loads(line))
            except ValueError:
                self._lines.append(_Bad(repr(line[:200])))
                return

    def _fill(self) -> None:
        if self._stalled is not None:
            raise self._stalled
        if self._eof:
            code = self.heartbeat()
            rc = self.wait()
            if self.killed:
                kind = "too_large" if self.killed == "line_too_large" else self.killed
                raise Ended(kind, self._kill_detail(), code, rc)
            raise Ended("exit", self._exit_detail(rc), code, rc)
        now = time.perf_counter()
        if now > self.deadline:
            self.kill("timeout")
            return
        poll = 0.25 if self.call_limit is None else min(0.25, max(self.call_limit / 8, 0.01))
        ready, _, _ = select.select([self.fd], [], [], min(poll, self.deadline - now))
        if ready:
            data = os.read(self.fd, READ)
            if not data:
                self._end()
                return
            self.received += len(data)
            self._seen_at = time.perf_counter()  # progress
            if self.received > self.limits.answer_mb * 1024 * 1024:
                self.kill("too_large")
            elif not self._take(data):
                self.kill("line_too_large")
            return
        self._watch()

    def _watch(self) -> None:
        """No answer waiting: has the job made progress? Timed on the
        parent's clock from the child's first line; what the heartbeat says
        only names the call (and gives the harness's own work between calls
        :data:`IDLE_GRACE` more)."""
        if not self._booted:  # trusted code only so far: the job's wall clock holds
            return
        words = struct.unpack_from("<4Q", self.beat, 0)
        now = time.perf_counter()
        code = words[3] or words[0]  # the call started last, even if the heartbeat is 0
        if self._expect is not None and now > self._expect:
            self.kill("overran")
            self._stalled = Overran(code, self._expect_limit + now - self._expect)
            return
        if self.call_limit is None:
            return
        if words != self._seen:
            self._seen, self._seen_at = words, now
            return
        limit = self.call_limit if words[0] else self.call_limit + IDLE_GRACE
        if now - self._seen_at > limit:
            seconds = now - self._seen_at
            self.kill("stalled")
            self._stalled = Stalled(code, seconds)  # after the lines written before it

    def _end(self) -> None:
        """At the end of the pipe: the lines still in the shared buffer (a
        child killed or ended inside a call), then what is left."""
        if self._eof:
            return
        self._eof = True
        base, size = struct.unpack_from("<QQ", self.beat, 8)
        if self.received >= base and size <= BUFFER:
            start = min(self.received - base, size)
            tail = bytes(self.beat[HEADER + start:HEADER + size])
            if self._partial_size + len(tail) > self.limits.line_mb * 1024 * 1024:
                self._clear_partial()
                return
            rest = self._unboot(b"".join([*self._partial, tail]))  # may have no newline
            self._clear_partial()
            if rest:
                self._pending.append((rest, 0))

    def kill(self, why: str) -> None:
        """Kill the whole sandbox (bubblewrap's PID namespace takes every
        process the job started with it)."""
        if self.killed is None:
            self.killed = why
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait()
        if why in ("stalled", "overran"):  # keep every line written before the call
            self._drain()
        else:
            self._eof = True
            self._lines.clear()
            self._pending.clear()
            self._clear_partial()

    def _drain(self) -> None:
        """What is left in the pipe of a killed job (at most the pipe's size)."""
        while True:
            try:
                data = os.read(self.fd, READ)
            except OSError:
                data = b""
            if not data:
                break
            self.received += len(data)
            if not self._take(data):
                return
        self._end()

    def _take(self, data: bytes) -> bool:
        """The complete lines of what came in (the last, incomplete, waits as
        a piece; the newline is looked for in the new piece only). False when
        the incomplete line outgrows ``Limits.line_mb``."""
        end = data.rfind(b"\n")
        if end < 0:
            self._partial.append(data)
            self._partial_size += len(data)
            return self._partial_size <= self.limits.line_mb * 1024 * 1024
        head = data[:end]
        if self._partial:
            if self._partial_size + end > self.limits.line_mb * 1024 * 1024:
                return False
            head = b"".join([*self._partial, head])
        head = self._unboot(head)
        self._clear_partial()
        rest = data[end + 1:]
        if rest:
            self._partial.append(rest)
            self._partial_size = len(rest)
        if head:
            self._pending.append((head, 0))
        return True

    def _clear_partial(self) -> None:
        self._partial.clear()
        self._partial_size = 0

    def _unboot(self, data: bytes) -> bytes:
        """The lines without the child's boot line (the stream's first)."""
        if self._booted:
            return data
        self._booted = True
        self._seen_at = time.perf_counter()
        if self._expect is not None:  # set before the boot: from the boot
            self._expect = self._seen_at + self._expect_limit
        return data[len(BOOTED) - 1:].lstrip(b"\n") if data.startswith(BOOTED[:-1]) else data

    def wait(self) -> int:
        """The child's status, a signal as a negative number (bubblewrap
        reports the sandboxed process's death by signal N as 128 + N)."""
        rc = self.proc.wait()
        if self.mode == "bwrap" and 128 < rc < 128 + 65:
            rc = 128 - rc
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything left in its group
        return rc

    def _kill_detail(self) -> str:
        if self.killed == "timeout":
            return (f"the job ran past {self.limits.wall_seconds:g} s of wall-clock time "
                    "and was killed")
        if self.killed == "too_large":
            return (f"the job answered more than {self.limits.answer_mb} MB (answer_mb) and "
                    "was killed at that size")
        if self.killed == "line_too_large":
            return (f"the job answered a line longer than {self.limits.line_mb} MB (line_mb) "
                    "and was killed at that size")
        return "the job was killed"

    def _exit_detail(self, rc: int) -> str:
        if rc < 0:
            with contextlib.suppress(ValueError):
                return f"the job died of signal {-rc} ({signal.Signals(-rc).name})"
        tail = self.stderr_tail()
        return f"the job exited with code {rc} without a complete answer" + (
            f": {tail}" if tail else "")

    def stderr_tail(self, size: int = 600) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            end = self.stderr.tell()
            self.stderr.seek(max(0, end - size))
            return self.stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def close(self) -> None:
        if self.proc.poll() is None:
            self.kill("closed")
        else:
            self.wait()
        with contextlib.suppress(OSError):
            os.close(self.fd)
        with contextlib.suppress(ValueError, BufferError):
            self.beat.close()
        self.stderr.close()
        if self.scratch:
            import shutil

            shutil.rmtree(self.scratch, ignore_errors=True)

    def __enter__(self) -> Job:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_job(target: str, payload: Mapping[str, object], limits: Limits = Limits()
            ) -> Outcome:
    """Run ``target(payload)`` ("module:function", trusted code) in a fresh
    sandboxed child; never raises for anything the child does (it raises
    :class:`~veriplan.sandbox.bwrap.SandboxUnavailableError` when there is no
    sandbox to run it in)."""
    start = time.perf_counter()
    with Job(target, payload, limits) as job:
        data: JSONValue = None
        try:
            while True:
                line = job.next()
                if isinstance(line, list) and len(line) == 2 and line[0] == "D":
                    data = line[1]
                    break
        except Ended as e:
            seconds = time.perf_counter() - start
            return _ended(e, job, limits, seconds)
        rc = job.wait()
        seconds = time.perf_counter() - start
    common = {"seconds": seconds, "network_isolated": job.network_isolated, "returncode": rc,
              "extra": {"sandbox": job.mode, "seccomp": job.seccomp, "uid": job.uid}}
    if not isinstance(data, dict):
        return Outcome(Category.NO_RESULT, detail="the job's answer is malformed", **common)
    common |= {"stdout": str(data.get("stdout", ""))[: limits.output_bytes],
               "stdout_size": _int(data.get("stdout_size"))}
    if "escaped" in data:
        kind = {c.value: c for c in _ESCAPED}.get(str(data["escaped"]), Category.NO_RESULT)
        return Outcome(kind, detail=str(data.get("detail", ""))[:4000], **common)
    return Outcome(None, result=data.get("returned"), **common)


_ESCAPED = (Category.EXIT, Category.MEMORY, Category.EXCEPTION, Category.UNSERIALIZABLE)


def _int(x: JSONValue) -> int:
    return x if isinstance(x, int) and not isinstance(x, bool) else 0


def _ended(e: Ended, job: Job, limits: Limits, seconds: float) -> Outcome:
    common = {"seconds": seconds, "returncode": e.returncode,
              "network_isolated": job.network_isolated,
              "extra": {"sandbox": job.mode, "seccomp": job.seccomp, "uid": job.uid}}
    if e.kind == "timeout":
        return Outcome(Category.TIMEOUT, detail=e.detail, **common)
    if e.kind == "too_large":
        return Outcome(Category.TOO_LARGE, detail=e.detail, **common)
    rc = e.returncode
    if rc in (-signal.SIGXCPU, -signal.SIGKILL) and not job.killed:
        return Outcome(Category.CPU_LIMIT, detail=f"the job used more than "
                       f"{limits.cpu_seconds} s of CPU time", **common)
    if rc is not None and rc < 0:
        return Outcome(Category.CRASH, detail=e.detail, **common)
    kind = Category.MEMORY if "MemoryError" in job.stderr_tail() else Category.NO_RESULT
    return Outcome(kind, detail=e.detail, **common)
