"""The operating-system sandbox: bubblewrap's command line for one job.

Inside: a private PID, mount, network, IPC and UTS namespace (and cgroup
namespace where the kernel has one); a file system that is an empty tmpfs with
only the Python installation (read-only: the interpreter, its standard library
without ``site-packages``, the shared libraries they load), veriplan's own
package and orjson where it is installed (read-only) and a private
size-limited scratch tmpfs; a private
``/proc`` (the sandbox's own processes only) and a minimal ``/dev``; an empty
environment; no capabilities; a seccomp filter (when ``pyseccomp`` is
installed) refusing process creation, ``ptrace`` and the other calls listed in
:data:`DENIED`. The process then runs under a user id of its own that no other
process uses (as root, the child drops to it before any untrusted code
runs; otherwise bubblewrap's user namespace maps the caller's id), so the
process-count limit holds for it.

When ``bwrap`` is missing veriplan refuses to run model-written code
(:class:`SandboxUnavailableError`), unless ``VERIPLAN_SANDBOX=process`` asks
for the weaker process sandbox (rlimits, a network namespace, a clean
environment and an audit hook; for code you trust).
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import secrets
import shutil
import subprocess
import sys
import sysconfig
from functools import cache

from veriplan.errors import ConfigError

MODE_ENV = "VERIPLAN_SANDBOX"
MODES = ("bwrap", "process")
SCRATCH = "/scratch"  # the private writable folder inside the sandbox
SOURCE = "/opt/veriplan"  # veriplan's package, read-only, inside the sandbox
UID_BASE, UID_SPAN = 1_900_000_000, 100_000_000  # per-job user ids no account uses

INSTALL = ("veriplan runs model-written code only inside bubblewrap, which is not installed "
           "(no `bwrap` on PATH). Install it: `apt-get install bubblewrap` (Debian/Ubuntu; "
           "`make install` does it), `dnf install bubblewrap` (Fedora). For a model you trust "
           "you may run it in the weaker process sandbox instead: VERIPLAN_SANDBOX=process "
           "(see README, AutoToS).")


class SandboxUnavailableError(ConfigError):
    """Model-written code cannot run: the OS sandbox is missing."""


def mode() -> str:
    """``bwrap`` (the default) or ``process`` (explicit opt-out)."""
    value = os.environ.get(MODE_ENV, "").strip().lower() or "bwrap"
    if value not in MODES:
        raise ConfigError(f"{MODE_ENV}={value!r}: expected one of {', '.join(MODES)}")
    return value


def bwrap_path() -> str:
    path = shutil.which("bwrap") or next(
        (p for p in ("/usr/bin/bwrap", "/bin/bwrap") if os.access(p, os.X_OK)), None)
    if path is None:
        raise SandboxUnavailableError(INSTALL)
    return path


def available() -> bool:
    try:
        bwrap_path()
    except SandboxUnavailableError:
        return False
    return True


def job_uid() -> int:
    return UID_BASE + secrets.randbelow(UID_SPAN)


# --- the Python installation, read-only ------------------------------------------------

# Extension modules whose libraries are not bound (GUI, terminal and NIS bindings):
# each bind costs the sandbox's start about half a millisecond
UNBOUND = ("_tkinter", "_curses", "_curses_panel", "readline", "nis", "_gdbm", "_dbm",
           "ossaudiodev", "spwd", "_crypt")


@cache
def layout() -> tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], str]:
    """(interpreter, directories to bind, shared libraries as (name the loader
    uses, real file), site-packages to hide), computed once per process."""
    exe = os.path.realpath(sys.executable)
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    dynload = os.path.join(stdlib, "lib-dynload")
    modules = [f for f in glob.glob(os.path.join(dynload, "*.so"))
               if os.path.basename(f).split(".")[0] not in UNBOUND]
    extra = [f for pkg in extra_packages() for f in glob.glob(os.path.join(pkg, "*.so"))]
    libs = _cached_libraries([exe, *modules, *extra])
    return exe, (stdlib,), tuple(sorted(libs)), os.path.join(stdlib, "site-packages")


# Installed packages the sandbox child may import (read-only, beside veriplan's
# package): only orjson, which writes the answer lines several times faster than
# the standard library (an optional dependency: the ``sandbox`` extra)
EXTRA_PACKAGES = ("orjson",)


@cache
def extra_packages() -> tuple[str, ...]:
    """The folders of :data:`EXTRA_PACKAGES` installed here."""
    import importlib.util

    found = []
    for name in EXTRA_PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.origin and os.path.basename(spec.origin) == "__init__.py":
            found.append(os.path.dirname(os.path.realpath(spec.origin)))
    return tuple(found)


LIBRARY_CACHE = "sandbox-libraries.json"
_LIBRARY_NAME = re.compile(r"[^/]+\.so(\.[0-9.]+)?$")


def _cached_libraries(files: list[str]) -> set[tuple[str, str]]:
    """:func:`_shared_libraries`, kept on disk between processes (``ldd`` on
    the interpreter and its extension modules takes 0.2-0.7 s, once per
    process otherwise). The entry holds for the same files (path, size,
    modification time) and the same loader cache (``/etc/ld.so.cache``, which
    changes when libraries are installed); it is used only if every library
    it names is still a regular file with a library's name."""
    import hashlib
    import json

    stamp = []
    for f in [*files, "/etc/ld.so.cache"]:
        try:
            st = os.stat(f)
            stamp.append([f, st.st_size, st.st_mtime_ns])
        except OSError:
            stamp.append([f, None, None])
    fingerprint = hashlib.sha256(json.dumps(stamp).encode()).hexdigest()
    try:
        from veriplan.storage import cache_dir

        path = cache_dir() / LIBRARY_CACHE
    except Exception:  # noqa: BLE001 - no home: no cache
        return _shared_libraries(files)
    with contextlib.suppress(OSError, ValueError, TypeError):
        entry = json.loads(path.read_text())
        if entry.get("fingerprint") == fingerprint:
            libs = {(str(a), str(b)) for a, b in entry["libraries"]}
            if all(_plausible(a) and _plausible(b) for a, b in libs):
                return libs
    libs = _shared_libraries(files)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"fingerprint": fingerprint, "libraries": sorted(libs)}))
        os.replace(tmp, path)
    return libs


def _plausible(path: str) -> bool:
    """An absolute path, without ``..``, of an existing regular file named like
    a shared library (what ``ldd`` reports; a cache entry naming anything
    else is not used)."""
    return (path.startswith("/") and "/../" not in path and _LIBRARY_NAME.search(path)
            is not None and os.path.isfile(path))


_LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x")


def _shared_libraries(files: list[str]) -> set[tuple[str, str]]:
    """The shared libraries ``files`` load (``ldd``): (the path the loader
    uses, with directory links resolved; the real file)."""
    try:
        out = subprocess.run(["ldd", *files], capture_output=True, text=True, timeout=60,
                             check=False).stdout
    except (OSError, subprocess.SubprocessError):
        out = ""
    found: set[tuple[str, str]] = set()
    for line in out.splitlines():
        m = _LDD_LINE.search(line)
        if m and os.path.exists(m.group(1)):
            path = m.group(1)
            found.add((os.path.join(os.path.realpath(os.path.dirname(path)),
                                    os.path.basename(path)), os.path.realpath(path)))
    return found


def _top_symlinks() -> list[tuple[str, str]]:
    """Merged-/usr links (/lib -> usr/lib ...) as the host has them."""
    out = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = "/" + name
        if os.path.islink(path):
            out.append((os.readlink(path), path))
    return out


def _ancestors(path: str) -> list[str]:
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


@cache
def _static_args() -> tuple[str, ...]:
    exe, dirs, libs, site = layout()
    links = _top_symlinks()
    linked = {dest for _, dest in links}
    args: list[str] = ["--tmpfs", "/"]
    for target, dest in links:
        args += ["--symlink", target, dest]
    made: set[str] = set()
    reals = sorted({real for _, real in libs if not any(real.startswith(d + "/") for d in dirs)})
    names = sorted({(name, real) for name, real in libs if name != real})
    wanted = [exe, *dirs, *reals, *(n for n, _ in names), os.path.join(SOURCE, "veriplan")]
    wanted += [os.path.join(SOURCE, os.path.basename(p)) for p in extra_packages()]
    for path in wanted:
        for d in _ancestors(path):
            if d in made or d in linked or any(d.startswith(x + "/") for x in linked):
                continue
            made.add(d)
            args += ["--perms", "0755", "--dir", d]
    args += ["--ro-bind", exe, exe]
    for d in dirs:
        args += ["--ro-bind", d, d]
    if os.path.isdir(site):
        args += ["--perms", "0555", "--tmpfs", site]  # nothing installed is visible
    for real in reals:
        args += ["--ro-bind", real, real]
    for name, real in names:  # libc.so.6 -> libc-2.36.so and the like: links, not mounts
        args += ["--symlink", real, name]
    args += ["--ro-bind", package_dir(), os.path.join(SOURCE, "veriplan")]
    for pkg in extra_packages():
        args += ["--ro-bind", pkg, os.path.join(SOURCE, os.path.basename(pkg))]
    args += ["--proc", "/proc", "--dev", "/dev"]
    return tuple(args)


def package_dir() -> str:
    return os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def command(uid: int, scratch_mb: int, seccomp_fd: int | None, child_args: list[str]) -> list[str]:
    """The bwrap command line running the sandbox child with ``child_args``."""
    root = os.geteuid() == 0
    args = [bwrap_path(), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            "--clearenv", "--setenv", "LANG", "C.UTF-8", "--setenv", "HOME", SCRATCH,
            "--setenv", "TMPDIR", SCRATCH, "--setenv", "PATH", "/nonexistent",
            "--hostname", "sandbox"]
    if root:  # the child switches to ``uid`` itself, before any untrusted code
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns"]
    args += list(_static_args())
    args += ["--perms", "0777", "--size", str(scratch_mb * 1024 * 1024), "--tmpfs", SCRATCH,
             "--chdir", SCRATCH]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    exe = layout()[0]
    return [*args, "--", exe, "-I", "-S", "-B", "-c", BOOT, SOURCE,
            str(uid if root else -1), *child_args]


BOOT = ("import sys;sys.path.insert(0,sys.argv[1]);"
        "from veriplan.sandbox.child import boot;boot(sys.argv[2:])")


# --- seccomp: a second layer ----------------------------------------------------------

# Refused with EPERM for the sandboxed process (clone only without CLONE_THREAD;
# clone3 answers ENOSYS, so the C library falls back to clone and its flags are
# seen). execve stays allowed: bubblewrap starts the interpreter after the
# filter is on, and nothing else executable is inside.
DENIED = ("fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
          "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "bpf",
          "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
          "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load",
          "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
          "swapon", "swapoff", "acct", "quotactl", "open_by_handle_at", "name_to_handle_at",
          "fanotify_init", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig",
          "pidfd_getfd", "process_madvise")
CLONE_THREAD = 0x00010000
AF_UNIX = 1


@cache
def seccomp_program() -> bytes | None:
    """The filter as compiled BPF (``pyseccomp``), or None without it."""
    try:
        import pyseccomp as sc
    except Exception:  # noqa: BLE001 - not installed, or no libseccomp: the layer is off
        return None
    import tempfile

    try:
        f = sc.SyscallFilter(sc.ALLOW)
        for name in DENIED:
            with contextlib.suppress(Exception):  # a call this kernel/arch does not have
                f.add_rule(sc.ERRNO(errno.EPERM), name)
        f.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
        f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
        f.add_rule(sc.ERRNO(errno.EACCES), "socket", sc.Arg(0, sc.NE, AF_UNIX))
        with tempfile.TemporaryFile() as out:
            f.export_bpf(out)
            out.seek(0)
            return out.read()
    except Exception:  # noqa: BLE001 - libseccomp refused: the layer is off
        return None
