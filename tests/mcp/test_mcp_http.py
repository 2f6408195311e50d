"""`veriplan mcp --http`: streamable HTTP bound to 127.0.0.1, once, with the SDK's
client: list the tools and validate a plan."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.mcp.conftest import VERIPLAN, Server, conforms, workspace


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_on_loopback(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    port = _free_port()
    proc = subprocess.Popen([VERIPLAN, "mcp", "--http", "--port", str(port), "--root",
                             str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            cwd=root)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the server did not start: {proc.stderr.read().decode()}")
                time.sleep(0.2)
        # bound to 127.0.0.1 only: the host's other addresses do not answer
        try:
            other = socket.gethostbyname(socket.gethostname())
        except OSError:
            other = "127.0.0.1"
        if other != "127.0.0.1":
            with pytest.raises(OSError):
                socket.create_connection((other, port), timeout=2).close()
        server = Server(f"http://127.0.0.1:{port}/mcp")
        try:
            tools = server.run(lambda c: c.list_tools()).tools
            assert "validate_plan" in {t.name for t in tools}
            assert "run_method" not in {t.name for t in tools}  # no --backend
            r = server.call("validate_plan", {"domain_path": "blocks-domain.pddl",
                                              "problem_path": "blocks-problem.pddl",
                                              "plan_path": "blocks-plan.txt"})
            conforms("validate_plan", r.structured_content)
            assert r.structured_content["valid"]
            r = server.call("validate_plan", {"domain_path": "../outside.pddl",
                                              "problem_path": "blocks-problem.pddl",
                                              "plan": ""})
            assert r.is_error
        finally:
            server.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
