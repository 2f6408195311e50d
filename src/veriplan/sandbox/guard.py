"""The child's audit hook: a policy on what the untrusted code may touch.

Installed once, it cannot be removed from Python. It refuses network sockets,
creating processes, loading native code, signalling other processes, reading
other processes' files under /proc, and creating, changing or removing files
outside the scratch directory. The process limits (set by the parent) and the
network namespace are the other layers; this hook is the one that gives a
readable error for each refusal.
"""

from __future__ import annotations

import os
import sys

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

_NEVER = {
    "socket.__new__": "opening a network socket",
    "socket.connect": "connecting to the network",
    "socket.bind": "binding a network socket",
    "socket.getaddrinfo": "looking up a network address",
    "subprocess.Popen": "starting a process",
    "os.system": "running a shell command",
    "os.fork": "forking a process",
    "os.forkpty": "forking a process",
    "os.posix_spawn": "starting a process",
    "os.exec": "replacing the process",
    "os.spawn": "starting a process",
    "pty.spawn": "starting a process",
    "ctypes.dlopen": "loading native code",
    "ctypes.dlsym": "loading native code",
    "ctypes.cdata": "using raw memory",
    "os.setns": "changing namespaces",
    "os.unshare": "changing namespaces",
}
_PATH_EVENTS = {"os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown",
                "os.truncate", "os.link", "os.symlink", "os.utime", "shutil.rmtree",
                "shutil.copyfile", "shutil.move"}


class SandboxViolation(PermissionError):
    """The untrusted code tried something the sandbox does not allow."""


def install(scratch: str) -> None:
    root = os.path.realpath(scratch)
    me = os.getpid()

    def inside(path: object) -> bool:
        if isinstance(path, int):  # an open file descriptor
            return True
        try:
            p = os.path.realpath(os.fsdecode(path))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return False
        return p == root or p.startswith(root + os.sep)

    def hook(event: str, args: tuple) -> None:
        if event in _NEVER or event.startswith(("os.exec", "os.spawn")):
            raise SandboxViolation(f"sandbox: {_NEVER.get(event, 'starting a process')} is "
                                   "not allowed")
        if event == "open":
            path, mode, flags = (list(args) + [None, None, 0])[:3]
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & _WRITE_FLAGS)
            if writing and not inside(path):
                raise SandboxViolation(f"sandbox: writing {path!r} outside the scratch "
                                       "directory is not allowed")
            if isinstance(path, str | bytes):
                text = os.fsdecode(path)
                if text.startswith("/proc/") and not text.startswith(("/proc/self/",
                                                                      f"/proc/{me}/")):
                    raise SandboxViolation(f"sandbox: reading {text!r} is not allowed")
        elif event in _PATH_EVENTS:
            for a in args[:2]:
                if isinstance(a, str | bytes | os.PathLike) and not inside(a):
                    raise SandboxViolation(f"sandbox: {event} on {a!r} outside the scratch "
                                           "directory is not allowed")
        elif event in ("os.kill", "os.killpg") and args and args[0] not in (me, 0):
            raise SandboxViolation("sandbox: signalling other processes is not allowed")

    sys.addaudithook(hook)
