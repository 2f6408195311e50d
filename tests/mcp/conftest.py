"""The real server for tests/mcp: ``veriplan mcp`` started once per test module as
a subprocess, driven by the MCP SDK's own client over stdio, and stopped at the
module's end. The client lives on an event loop in a thread of its own, so the
tests stay plain functions: ``server.call(tool, arguments)``."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

import pytest

mcp = pytest.importorskip("mcp", reason="the MCP SDK (pip install 'veriplan[mcp]')")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp_types import CallToolResult  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "src" / "veriplan" / "examples"
SCHEMAS = REPO / "docs" / "schemas"
VERIPLAN = str(Path(sys.executable).parent / "veriplan")
T = TypeVar("T")


class Server:
    """A connected client of one running server; ``call`` a tool, ``run`` any
    coroutine of the client."""

    def __init__(self, target: StdioServerParameters | str) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready: Future[Client] = Future()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self.loop.run_until_complete,
                                        args=(self._main(target),), daemon=True)
        self._thread.start()
        self.client = self._ready.result(timeout=60)

    async def _main(self, target: StdioServerParameters | str) -> None:
        self._stop = asyncio.Event()
        try:
            async with Client(target, read_timeout_seconds=120) as client:
                self._ready.set_result(client)
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - the test sees it
            if not self._ready.done():
                self._ready.set_exception(exc)
            raise

    def run(self, make: Callable[[Client], Awaitable[T]], timeout: float = 120) -> T:
        return asyncio.run_coroutine_threadsafe(make(self.client), self.loop).result(timeout)

    def call(self, name: str, arguments: dict[str, object]) -> CallToolResult:
        return self.run(lambda c: c.call_tool(name, arguments))

    def close(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=30)


def workspace(base: Path) -> Path:
    """A root with the examples, a link out of it, and a secret beside it."""
    root = base / "root"
    (root / "sub").mkdir(parents=True)
    for f in EXAMPLES.iterdir():
        if f.suffix in (".pddl", ".txt", ".yaml"):
            shutil.copy(f, root / f.name)
    (base / "outside.pddl").write_text(EXAMPLES.joinpath("blocks-domain.pddl").read_text())
    (base / "secret.txt").write_text("TOP-SECRET-CONTENT\n")
    (root / "link-out.pddl").symlink_to(base / "outside.pddl")
    (root / "sub" / "link-secret.txt").symlink_to(base / "secret.txt")
    (root / "big-plan.txt").write_text("(pick-up a)\n" * 40_000)  # 480 KB: over the limit
    return root


def start(root: Path, *extra: str, calls: Path | None = None) -> Server:
    env = {"PYTHONPATH": str(REPO), "VERIPLAN_MCP_CALLS": str(calls or root / "calls.txt")}
    params = StdioServerParameters(
        command=VERIPLAN, args=["mcp", "--root", str(root), "--max-bytes", "256K", *extra],
        env=env, cwd=str(root))
    return Server(params)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return workspace(tmp_path_factory.mktemp("mcp"))


@pytest.fixture(scope="module")
def server(root: Path) -> Iterator[Server]:
    s = start(root, "--time-limit", "20", "--backend", "scripted",
              "--script", "tests.mcp.scripted_model:answer")
    yield s
    s.close()


def schema(name: str) -> dict[str, object]:
    return json.loads((SCHEMAS / f"{name}.v1.json").read_text())


def conforms(name: str, document: object) -> None:
    import jsonschema

    jsonschema.validate(document, schema(name))


def text_of(result: CallToolResult) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


__all__ = ["EXAMPLES", "REPO", "SCHEMAS", "VERIPLAN", "Server", "conforms", "os", "start",
           "text_of", "workspace"]
