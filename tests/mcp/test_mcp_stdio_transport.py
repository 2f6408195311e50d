"""``veriplan mcp``'s stdio transport read and written on the event loop: raw
JSON-RPC lines over pipes (a request larger than asyncio's default line limit,
every reply, a clean exit when stdin closes)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (pip install 'veriplan[mcp]')")

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
VERIPLAN = str(Path(sys.executable).parent / "veriplan")
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {}}


def _requests(root: Path) -> str:
    for name in ("blocks-domain.pddl", "blocks-problem.pddl", "blocks-bad-plan.txt"):
        shutil.copy(EXAMPLES / name, root / name)
    # a comment far past 64 KiB: one request line larger than asyncio's default limit
    domain = (EXAMPLES / "blocks-domain.pddl").read_text() + ";" + "x" * 200_000 + "\n"
    calls = [{"domain_path": "blocks-domain.pddl", "problem_path": "blocks-problem.pddl",
              "plan_path": "blocks-bad-plan.txt"},
             {"domain": domain, "problem_path": "blocks-problem.pddl",
              "plan": "(unstack c a)\n(put-down c)\n"}]
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": META}}]
    lines += [{"jsonrpc": "2.0", "id": 2 + i, "method": "tools/call",
               "params": {"name": "validate_plan", "arguments": a, "_meta": META}}
              for i, a in enumerate(calls)]
    return "".join(json.dumps(m) + "\n" for m in lines)


def _check(out: str) -> None:
    # requests are served concurrently: JSON-RPC matches replies by id, not by order
    replies = sorted((json.loads(line) for line in out.splitlines()), key=lambda r: r["id"])
    assert [r["id"] for r in replies] == [1, 2, 3]
    bad, short = (r["result"]["structuredContent"] for r in replies[1:])
    assert bad["verdict"] == "invalid" and bad["failed_step"] is not None
    assert short["verdict"] == "invalid" and short["unmet_goals"] and not short["failed_step"]


def test_pipes_carry_a_request_past_asyncios_line_limit_and_exit_cleanly(tmp_path: Path
                                                                         ) -> None:
    server = subprocess.Popen([VERIPLAN, "mcp", "--root", str(tmp_path)], cwd=tmp_path,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(_requests(tmp_path))
        server.stdin.flush()
        out = "".join(server.stdout.readline() for _ in range(3))
        server.stdin.close()  # end of input: the server stops
        assert server.wait(timeout=30) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    _check(out)
