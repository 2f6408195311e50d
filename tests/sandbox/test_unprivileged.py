"""The sandbox started by a user without privileges (bubblewrap's own user
namespace, no capability to drop): model code run through ``run_code`` and
through AutoToS's harness by ``nobody`` is held as it is when veriplan runs as
root. One unprivileged process runs every case (a fixture shared by the
tests); each test asserts one kind of containment."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sandbox import hostile

ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
SECRET = "sk-unprivileged-test-93b1f0c4de"
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]

# Run as nobody: every case, its outcome as JSON on the last line.
DRIVER = r"""
import json, sys
cases, out_dir = json.loads(sys.argv[1]), sys.argv[2]
from veriplan.sandbox import Limits, run_code
from veriplan.domains.autotos import get_domain
from veriplan.methods.autotos import judge

quick = Limits(wall_seconds=20, cpu_seconds=15, memory_mb=512)
report = {}
for name, code in cases.items():
    o = run_code(code, quick)
    report[name] = {"category": o.category, "result": o.result, "detail": o.detail,
                    "stdout": o.stdout, "extra": o.extra, "isolated": o.network_isolated}
d = get_domain("24game")
units = [{"id": "g", "init": [24], "meta": {"expected": True}}]
stuck = "def goal(state):\n    import collections, itertools\n" \
        "    collections.deque(itertools.count(), maxlen=0)\n"
report["c_loop_goal"] = judge.goal_tests(d, stuck, units, 1.0)
report["honest_goal"] = judge.goal_tests(d, d.reference_code("goal"), units, 1.0)
print(json.dumps(report, default=str))
"""


def _snippet(body: str, **fmt: str) -> str:
    text = body.format(**fmt) if fmt else body
    return f"try:\n{hostile.indent(text)}    result = 'ran'\nexcept BaseException as e:\n" \
           "    result = repr(e)\n"


IDENTITY = ("import os\nresult = [os.getuid(), os.getgid(), sorted(os.listdir('/')), "
            "sorted(os.environ), open('/proc/self/status').read(), "
            "sorted(os.listdir('/sys/class/net')) if os.path.isdir('/sys/class/net') else []]")


def _site_packages() -> str:
    """This environment's packages (pyseccomp for the seccomp layer)."""
    import sysconfig

    return sysconfig.get_paths()["purelib"]


def _env(**extra: str) -> dict[str, str]:
    return {"PYTHONPATH": f"{ROOT / 'src'}:{_site_packages()}", "PATH": "/usr/bin:/bin",
            "LANG": "C.UTF-8", **extra}


@functools.cache
def _python() -> str | None:
    """An interpreter nobody can run with its whole installation readable:
    this one, else the system's (this one may live in root's home)."""
    for exe in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(exe):
            continue
        probe = subprocess.run(
            [*AS_NOBODY, exe, "-c", "import sys, os, sysconfig, veriplan; "
             "assert sys.version_info >= (3, 11); "
             "os.stat(os.path.realpath(sys.executable)); "
             "os.listdir(sysconfig.get_paths()['stdlib'])"],
            capture_output=True, text=True, check=False, cwd="/", env=_env())
        if probe.returncode == 0:
            return exe
    return None


def _why_not() -> str | None:
    """Why this machine cannot run the test, or None."""
    if os.geteuid() != 0:
        return "starting a process as another user needs root (run the tests as root)"
    if shutil.which("setpriv") is None or shutil.which("bwrap") is None:
        return "needs setpriv (util-linux) and bwrap (bubblewrap)"
    probe = subprocess.run([*AS_NOBODY, "bwrap", "--unshare-user", "--ro-bind", "/", "/",
                            "true"], capture_output=True, text=True, check=False)
    if probe.returncode:
        return ("this machine forbids unprivileged user namespaces (bubblewrap as nobody: "
                f"{probe.stderr.strip()[:200]}); see README, AutoToS")
    if _python() is None:
        return ("no Python >= 3.11 whose installation the user nobody can read, or nobody "
                "cannot read this source tree")
    return None


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    why = _why_not()
    if why:
        pytest.skip(why)
    out = tmp_path_factory.mktemp("unprivileged-out")
    os.chmod(out, 0o777)  # nobody may write here from outside the sandbox, never from inside
    cases = {
        "identity": IDENTITY,
        "environ": _snippet(hostile.READ_ENVIRON),
        "passwd": _snippet(hostile.READ_FILE),
        "create": _snippet(hostile.CREATE_FILES, out=str(out), mark="create"),
        "fork_exec": _snippet(hostile.FORK_EXEC, out=str(out), mark="fork"),
        "forged": hostile.FORGE_RESULT,
    }
    env = _env(VERIPLAN_SANDBOX="bwrap", OPENAI_API_KEY=SECRET, HOME=str(out))
    done = subprocess.run([*AS_NOBODY, str(_python()), "-c", DRIVER, json.dumps(cases),
                           str(out)], capture_output=True, text=True, env=env, cwd="/",
                          check=False, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(done.stdout.strip().splitlines()[-1])
    data["_files"] = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    data["_output"] = done.stdout + done.stderr
    return data


def test_the_unprivileged_sandbox_is_bubblewrap_without_privileges_or_network(report):
    r = report["identity"]
    assert r["category"] is None, r["detail"]
    assert r["extra"]["sandbox"] == "bwrap" and r["isolated"] and r["extra"]["seccomp"]
    assert r["extra"]["uid"] == NOBODY
    uid, gid, top, env, status, net = r["result"]
    assert uid == gid == NOBODY  # the caller's id, mapped in bubblewrap's user namespace
    assert "home" not in top and "etc" not in top and "tmp" not in top and "work" not in top
    assert set(env) <= {"LANG", "HOME", "TMPDIR", "PATH", "PWD"}
    caps = {x.split(":")[0]: x.split(":")[1].strip() for x in status.splitlines() if ":" in x}
    assert int(caps["CapEff"], 16) == 0 and int(caps["CapPrm"], 16) == 0
    assert caps.get("Seccomp") == "2" and caps["NoNewPrivs"] == "1"
    assert net == []


def test_no_secret_and_no_host_file_comes_back(report):
    assert SECRET not in report["_output"]
    assert "environ" in str(report["environ"]["result"])  # the attempt ran, found nothing
    assert "root:" not in json.dumps(report["passwd"])


def test_nothing_is_written_outside_and_no_process_starts(report):
    assert report["create"]["category"] is None and report["fork_exec"]["category"] is None
    assert report["_files"] == []


def test_a_forged_result_is_not_read(report):
    assert report["forged"]["category"] == "no_result"
    assert report["forged"]["result"] is None


def test_a_c_loop_is_stopped_from_outside_and_checks_still_pass(report):
    failure = report["c_loop_goal"]["failure"]
    assert failure is not None and failure["category"] == "goal_too_slow"
    assert report["honest_goal"] == {"failure": None}
