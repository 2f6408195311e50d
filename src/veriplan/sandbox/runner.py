"""The parent side of the sandbox: one child process per job."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

CLONE_NEWNET = 0x40000000


@dataclass(frozen=True)
class Limits:
    wall_seconds: float = 660.0  # the whole job (a search limit of 600 s fits inside)
    cpu_seconds: int = 650
    memory_mb: int = 2048  # address space
    file_mb: int = 64  # largest file the child may write
    output_bytes: int = 65536  # printed text kept for the report; the rest is counted
    network_namespace: bool = True  # also cut the network off at the kernel when allowed


@dataclass
class Outcome:
    """``category`` is None when the target returned (``result``); otherwise
    what stopped the job: timeout, cpu_limit, memory, exit, exception,
    unserializable, crash, no_result."""

    category: str | None
    result: Any = None
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


def _clean_env(scratch: str) -> dict[str, str]:
    """No secrets: only what Python needs to start."""
    return {"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}


def _limit(limits: Limits):
    def preexec() -> None:
        os.setsid()
        mb = 1024 * 1024
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_mb * mb,) * 2)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * mb,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_NPROC, (64, 64))  # not enforced for root
        if limits.network_namespace:
            try:
                import ctypes

                ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWNET)
            except Exception:  # noqa: BLE001 - the audit hook still refuses sockets
                pass
    return preexec


def _own_netns() -> str:
    try:
        return os.readlink("/proc/self/ns/net")
    except OSError:
        return ""


def run_job(target: str, payload: Any, limits: Limits = Limits()) -> Outcome:
    """Run ``target(payload)`` ("module:function", trusted code) in a fresh
    sandboxed child; never raises for anything the child does."""
    scratch = tempfile.mkdtemp(prefix="veriplan-sandbox-")
    start = time.perf_counter()
    try:
        with open(os.path.join(scratch, "job.json"), "w") as f:
            json.dump({"target": target, "payload": payload,
                       "output_bytes": limits.output_bytes}, f)
        with open(os.path.join(scratch, "stdio.txt"), "wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-m", "veriplan.sandbox.child", scratch],
                cwd=scratch, env=_clean_env(scratch), stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, preexec_fn=_limit(limits), close_fds=True)
            try:
                code = proc.wait(timeout=limits.wall_seconds)
            except subprocess.TimeoutExpired:
                _kill(proc)
                return Outcome("timeout", detail=f"the job ran past {limits.wall_seconds:g} s "
                               "of wall-clock time and was killed",
                               seconds=time.perf_counter() - start)
            _kill(proc)  # anything the job left behind in its process group
        return _collect(scratch, code, limits, time.perf_counter() - start)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _collect(scratch: str, code: int, limits: Limits, seconds: float) -> Outcome:
    path = os.path.join(scratch, "result.json")
    if not os.path.isfile(path):
        if code == -signal.SIGXCPU or code == -signal.SIGKILL:
            return Outcome("cpu_limit", detail=f"the job used more than {limits.cpu_seconds} s "
                           "of CPU time", seconds=seconds, returncode=code)
        if code < 0:
            return Outcome("crash", detail=f"the job died of signal {-code} "
                           f"({signal.Signals(-code).name})", seconds=seconds, returncode=code)
        tail = _tail(os.path.join(scratch, "stdio.txt"))
        kind = "memory" if "MemoryError" in tail else "no_result"
        return Outcome(kind, detail=f"the job exited with code {code} without a result"
                       + (f": {tail}" if tail else ""), seconds=seconds, returncode=code)
    if os.path.getsize(path) > limits.file_mb * 1024 * 1024:
        return Outcome("no_result", detail="the result is too large", seconds=seconds)
    with open(path) as f:
        data = json.load(f)
    isolated = bool(data.get("netns")) and data.get("netns") != _own_netns()
    common = {"seconds": seconds, "stdout": data.get("stdout", ""),
              "stdout_size": data.get("stdout_size", 0), "network_isolated": isolated,
              "returncode": code}
    if "escaped" in data:
        return Outcome(data["escaped"], detail=data.get("detail", ""), **common)
    return Outcome(None, result=data.get("returned"), **common)


def _tail(path: str, size: int = 600) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, os.path.getsize(path) - size))
            return f.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
