"""Issue 31's attacks on the sandbox itself, through ``run_code``: nothing
gets out, no secret comes back, no process outlives its job, and the answer
is read only from what the sandbox returns (each of these escaped the sandbox
before bubblewrap)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.sandbox import hostile
from veriplan.sandbox import Limits, run_code

QUICK = Limits(wall_seconds=20, cpu_seconds=15, memory_mb=512)
SECRET = "sk-hostile-test-4f9c2a7e51"
ROOT = Path(__file__).resolve().parents[2]
PRELUDE = ""  # code run first in a subprocess parent


def snippet(body: str, **fmt: str) -> str:
    """A snippet that runs ``body`` and keeps what it raised as its result."""
    text = body.format(**fmt) if fmt else body
    return f"try:\n{hostile.indent(text)}    result = 'ran'\nexcept BaseException as e:\n" \
           "    result = repr(e)\n"


def everything(out) -> str:
    return json.dumps([out.result, out.detail, out.stdout, out.extra], default=str)


def _uid_processes(uid: int) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        line = next((x for x in status.splitlines() if x.startswith("Uid:")), "")
        if str(uid) in line.split():
            found.append(pid)
    return found


def test_the_parents_environment_cannot_be_read():
    # /proc/<pid>/environ shows a process's environment from its start: the
    # parent is a fresh process started with the key
    code = (f"{PRELUDE}import json\nfrom veriplan.sandbox import run_code\n"
            f"out = run_code({snippet(hostile.READ_ENVIRON)!r})\n"
            "print(json.dumps([out.result, out.detail, out.stdout]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, OPENAI_API_KEY=SECRET), cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert SECRET not in done.stdout + done.stderr
    assert "environ" in done.stdout  # the attempt ran and found nothing


def test_host_files_are_not_there():
    out = run_code(snippet(hostile.READ_FILE), QUICK)
    assert "root:" not in everything(out)


def test_no_file_is_created_outside_the_scratch_folder(tmp_path):
    out = run_code(snippet(hostile.CREATE_FILES, out=str(tmp_path), mark="x"), QUICK)
    assert out.ok
    assert list(tmp_path.iterdir()) == []


def test_no_process_can_be_started(tmp_path):
    out = run_code(snippet(hostile.FORK_EXEC, out=str(tmp_path), mark="x"), QUICK)
    assert out.ok
    assert list(tmp_path.iterdir()) == []


def test_nothing_outlives_the_job(tmp_path):
    out = run_code(snippet(hostile.OUTLIVE, out=str(tmp_path), mark="x"), QUICK)
    assert out.ok
    assert _uid_processes(out.extra["uid"]) == []
    time.sleep(3)  # the escaped shell would write after 2 s
    assert list(tmp_path.iterdir()) == []


def test_a_forged_result_file_is_not_read():
    out = run_code(hostile.FORGE_RESULT, QUICK)
    assert out.category == "no_result" and out.result is None
    assert out.network_isolated  # known from how the job ran, not from the child


def test_a_loop_in_c_code_is_stopped_from_outside():
    out = run_code(hostile.C_LOOP, Limits(wall_seconds=2, cpu_seconds=30))
    assert out.category == "timeout"


def test_the_sandbox_is_an_unprivileged_user_without_network_or_host():
    out = run_code("import os\nresult = [os.getuid(), os.getgid(), sorted(os.listdir('/')), "
                   "sorted(os.environ), open('/proc/self/status').read()]", QUICK)
    assert out.ok, out.detail
    uid, gid, top, env, status = out.result
    assert uid == gid == out.extra["uid"] and uid > 0
    assert set(top) <= {"bin", "dev", "lib", "lib32", "lib64", "libx32", "opt", "proc", "root",
                        "sbin", "scratch", "usr"}
    assert "home" not in top and "etc" not in top and "tmp" not in top
    assert set(env) <= {"LANG", "HOME", "TMPDIR", "PATH", "PWD"}
    caps = {x.split(":")[0]: x.split(":")[1].strip() for x in status.splitlines() if ":" in x}
    assert int(caps["CapEff"], 16) == 0 and int(caps["CapPrm"], 16) == 0
    assert caps.get("Seccomp") == "2" and caps["NoNewPrivs"] == "1"
    out = run_code("import os\nresult = sorted(os.listdir('/sys/class/net')) "
                   "if os.path.isdir('/sys/class/net') else []", QUICK)
    assert out.ok and out.result == []


def test_python_installation_is_read_only_and_scratch_is_private():
    # past the audit hook (a relative name under a directory descriptor)
    out = run_code(snippet("import os\nfd = os.open(os.path.dirname(os.__file__), os.O_RDONLY)\n"
                           "os.open('x.py', os.O_CREAT | os.O_WRONLY, dir_fd=fd)"), QUICK)
    assert "OSError" in str(out.result) or "Permission" in str(out.result)
    out = run_code("open('a.txt', 'w').write('x')\nimport os\nresult = os.listdir('.')", QUICK)
    assert out.ok and out.result == ["a.txt"]
    again = run_code("import os\nresult = os.listdir('.')", QUICK)
    assert again.ok and again.result == []  # every job starts with an empty scratch


@pytest.mark.parametrize("mode", ["bwrap", ""])
def test_without_bubblewrap_veriplan_refuses(monkeypatch, mode):
    from veriplan.sandbox import SandboxUnavailableError, bwrap

    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(bwrap.os, "access", lambda *a: False)
    if mode:
        monkeypatch.setenv("VERIPLAN_SANDBOX", mode)
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        run_code("result = 1", QUICK)


def test_the_opt_out_is_explicit(monkeypatch):
    from veriplan.sandbox import bwrap

    monkeypatch.delenv("VERIPLAN_SANDBOX", raising=False)
    assert bwrap.mode() == "bwrap"
    monkeypatch.setenv("VERIPLAN_SANDBOX", "process")
    out = run_code("result = 2", QUICK)
    assert out.ok and out.result == 2 and out.extra["sandbox"] == "process"
    assert not out.network_isolated  # not claimed without bubblewrap
