"""The sandbox child, started by bubblewrap (or, opted out, as a plain
process) with ``python -I -S -B -c BOOT SOURCE UID OUT BEAT JOB SCRATCH``.

As root it first switches to the job's own user id (no capabilities are left),
then reads the job from the ``JOB`` descriptor, imports the trusted target,
bounds stdout/stderr, turns the audit hook on (friendly messages only: the
boundary is the OS sandbox) and calls the target. Answers travel as JSON lines
on ``OUT`` (:data:`CHANNEL`); the last is ``["D", result]``.
"""

from __future__ import annotations

import importlib
import json
import mmap
import os
import signal
import sys
import traceback


class _Sink:
    """Keeps the first ``keep`` characters written, counts the rest."""

    def __init__(self, keep: int) -> None:
        self.keep, self.parts, self.size = keep, [], 0

    def write(self, text: str) -> int:
        if self.size < self.keep:
            self.parts.append(text[: self.keep - self.size])
        self.size += len(text)
        return len(text)

    def flush(self) -> None:
        pass

    def text(self) -> str:
        return "".join(self.parts)


# heartbeat, stream offset of the buffer, bytes buffered, last call started
HEADER = 32
BUFFER = 256 * 1024  # answer lines not yet written to the pipe
BOOTED = b'["B"]\n'  # the first line, written before any untrusted code runs


class Channel:
    """The child's answer stream and heartbeat, on memory shared with the
    parent: ``beat[0]`` holds the code of the call of untrusted code in
    progress (0: none) and ``beat[3]`` the code of the last call started (it
    stays when the call ends): they name the call; the parent keeps the time
    itself, so untrusted code that rewrites them only changes the name. Lines
    collect in a shared buffer and go down the pipe when it fills (or at the
    end), so a line costs no system call, and when a call has to be killed the
    parent still reads every line written before it."""

    def __init__(self, out_fd: int, shared_fd: int) -> None:
        self.fd = out_fd
        self._map = mmap.mmap(shared_fd, HEADER + BUFFER)
        view = memoryview(self._map)
        self.beat = view[:HEADER].cast("Q")
        self._buf = view[HEADER:]
        self.sequence = 0
        self._dumps = json.JSONEncoder(separators=(",", ":")).encode
        self._write = os.write

    def send(self, obj: object) -> None:
        self.send_text(self._dumps(obj))

    def send_text(self, text: str) -> None:
        self.send_bytes((text + "\n").encode())

    def send_bytes(self, data: bytes) -> None:
        """One line, UTF-8, ending in a newline."""
        beat = self.beat
        beat[0] = 0  # writing may wait for the parent: not a call
        n, size = beat[2], len(data)
        if n + size > BUFFER:
            self.flush()
            n = 0
            if size > BUFFER:
                self._write_all(data)
                beat[1] += size
                return
        self._buf[n:n + size] = data
        beat[2] = n + size

    def flush(self) -> None:
        beat = self.beat
        beat[0] = 0
        n = beat[2]
        if n:
            self._write_all(self._buf[:n])
            beat[2] = 0
            beat[1] += n

    def _write_all(self, data: bytes | memoryview) -> None:
        view = memoryview(data)
        write, fd = self._write, self.fd
        while view:
            view = view[write(fd, view):]

    def code(self, role_bit: int) -> int:
        """A fresh heartbeat base for the next call(s): add an index below 2**23."""
        self.sequence += 1
        return (self.sequence << 24) | role_bit

    def begin(self, code: int) -> None:
        """A call of untrusted code starts (``code``); ``beat[0] = 0`` ends it.
        (The search loops write ``beat[0] = beat[3] = code`` themselves.)"""
        beat = self.beat
        beat[0] = beat[3] = code


CHANNEL: Channel | None = None


def boot(argv: list[str]) -> None:
    uid, out_fd, beat_fd, job_fd, scratch = argv
    if int(uid) >= 0 and os.getuid() == 0:
        os.setgroups([])
        os.setgid(int(uid))
        os.setuid(int(uid))
        if os.getuid() == 0 or os.geteuid() == 0:
            raise SystemExit("veriplan sandbox: could not leave the root user")
    main(int(out_fd), int(beat_fd), int(job_fd), scratch)


def main(out_fd: int, beat_fd: int, job_fd: int, scratch: str) -> None:
    global CHANNEL
    with os.fdopen(job_fd, "rb") as f:
        job = json.loads(f.read())
    CHANNEL = channel = Channel(out_fd, beat_fd)
    dump = json.dumps  # kept before untrusted code runs
    module, _, name = job["target"].partition(":")
    target = getattr(importlib.import_module(module), name)
    from veriplan.sandbox import guard

    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversized writes fail, not kill
    sink = _Sink(int(job.get("output_bytes", 65536)))
    sys.stdout = sys.stderr = sink  # type: ignore[assignment]
    guard.install(scratch)
    channel.send_bytes(BOOTED)  # on the pipe now: from here the parent keeps the time
    channel.flush()
    try:
        result: dict = {"returned": target(job["payload"])}
    except SystemExit as e:
        result = {"escaped": "exit", "detail": f"the code called sys.exit({e.code!r})"}
    except MemoryError:
        result = {"escaped": "memory", "detail": "the memory limit was reached"}
    except BaseException as e:  # noqa: BLE001 - the job's own failure, reported as data
        result = {"escaped": "exception", "detail": "".join(
            traceback.format_exception_only(type(e), e)).strip()[-2000:]}
    result["stdout"] = sink.text()
    result["stdout_size"] = sink.size
    try:
        text = dump(["D", result])
    except (TypeError, ValueError) as e:
        text = dump(["D", {"escaped": "unserializable", "detail": f"the result is not JSON: {e}",
                           "stdout": "", "stdout_size": sink.size}])
    channel.send_text(text)
    channel.flush()
