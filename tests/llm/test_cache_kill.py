"""A process killed with SIGKILL mid-run leaves the cache readable and
complete for every call that returned."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

from veriplan.llm import LLMRequest, ResponseCache

WORKER = textwrap.dedent("""
    import sys
    from veriplan.llm import LLM, LLMRequest, ResponseCache, ScriptedBackend
    llm = LLM(ScriptedBackend(fn=lambda r: "answer to " + r.messages[-1].content,
                              delay=0.002),
              cache=ResponseCache(sys.argv[1]))
    for i in range(100000):
        llm.complete(LLMRequest.of(f"q{i}"))
        print(i, flush=True)
""")


def test_kill_9_loses_nothing_that_returned(tmp_path):
    path = tmp_path / "cache.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", WORKER, str(path)],
                            stdout=subprocess.PIPE, text=True)
    returned = []
    for line in proc.stdout:
        returned.append(int(line))
        if len(returned) >= 300:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    cache = ResponseCache(path)
    for i in returned:
        hit = cache.get("scripted", LLMRequest.of(f"q{i}", model="scripted"))
        assert hit is not None and hit.text == f"answer to q{i}"
