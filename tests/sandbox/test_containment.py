"""Each way untrusted code can misbehave is contained and reported as a
category, never a crash of veriplan (the AutoToS issue's list)."""

from __future__ import annotations

import os

import pytest

from veriplan.sandbox import Limits, run_code

QUICK = Limits(wall_seconds=10, cpu_seconds=8, memory_mb=512)


def test_a_plain_snippet_returns_its_result():
    out = run_code("result = sum(range(10))", QUICK)
    assert out.ok and out.result == 45 and out.returncode == 0


def test_infinite_loop_is_stopped_by_the_wall_clock():
    out = run_code("while True:\n    pass", Limits(wall_seconds=2, cpu_seconds=30))
    assert out.category == "timeout" and "wall-clock" in out.detail


def test_cpu_limit_stops_a_busy_job():
    out = run_code("while True:\n    pass", Limits(wall_seconds=30, cpu_seconds=1))
    assert out.category == "cpu_limit"


def test_memory_bomb_hits_the_memory_limit():
    out = run_code("x = []\nwhile True:\n    x.append(bytearray(50_000_000))", QUICK)
    assert out.category == "memory"


def test_fork_bomb_is_refused():
    out = run_code("import os\nwhile True:\n    os.fork()", QUICK)
    assert out.category == "exception" and "forking a process is not allowed" in out.detail
    out = run_code("import subprocess\nresult = subprocess.run(['true']).returncode", QUICK)
    assert out.category == "exception" and "starting a process" in out.detail


def test_deep_recursion_is_an_error_not_a_crash():
    out = run_code("def f(n):\n    return f(n + 1)\nf(0)", QUICK)
    assert out.category == "exception" and "RecursionError" in out.detail
    out = run_code("import sys\nsys.setrecursionlimit(10**9)\n"
                   "def f(n):\n    return f(n + 1)\nf(0)", QUICK)
    # Python 3.11 recursion grows the heap, not the C stack: whichever limit comes
    # first (memory, CPU, a crash), the job ends as a category, not a hang or a crash
    # of veriplan
    # (on a loaded machine the wall clock can come before the CPU limit)
    assert out.category in ("crash", "exception", "memory", "cpu_limit", "timeout")


def test_writing_outside_the_scratch_directory_is_refused(tmp_path):
    target = tmp_path / "escaped.txt"
    out = run_code(f"open({str(target)!r}, 'w').write('x')", QUICK)
    assert out.category == "exception" and "outside the scratch directory" in out.detail
    assert not target.exists()
    out = run_code("open('inside.txt', 'w').write('fine')\nresult = open('inside.txt').read()",
                   QUICK)
    assert out.ok and out.result == "fine"


def test_network_is_cut_off():
    out = run_code("import socket\ns = socket.socket()\ns.connect(('127.0.0.1', 9))", QUICK)
    assert out.category == "exception" and "network socket is not allowed" in out.detail


def test_no_secrets_reach_the_child(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    out = run_code("import os\nresult = {k: v for k, v in os.environ.items() "
                   "if 'KEY' in k or 'sk-' in v}", QUICK)
    assert out.ok and out.result == {}
    out = run_code(f"result = open('/proc/{os.getpid()}/environ', 'rb').read().decode()",
                   QUICK)
    assert out.category == "exception" and "not allowed" in out.detail


def test_sys_exit_is_reported():
    out = run_code("import sys\nsys.exit(3)", QUICK)
    assert out.category == "exit" and "sys.exit(3)" in out.detail


def test_printing_megabytes_is_kept_short():
    out = run_code("for _ in range(100_000):\n    print('x' * 100)\nresult = 'done'",
                   Limits(wall_seconds=20, output_bytes=1000))
    assert out.ok and out.result == "done"
    assert len(out.stdout) == 1000 and out.stdout_size > 10_000_000


def test_unpicklable_results_are_reported():
    out = run_code("result = lambda: 1", QUICK)
    assert out.category == "unserializable"


@pytest.mark.skipif(not os.path.exists("/proc/self/ns/net"), reason="no namespaces here")
def test_network_namespace_when_the_kernel_allows_it():
    out = run_code("result = 1", QUICK)
    # As root (CI here) the child gets its own network namespace; elsewhere the
    # audit hook alone refuses sockets (test_network_is_cut_off).
    assert out.ok and isinstance(out.network_isolated, bool)
