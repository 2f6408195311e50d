"""``veriplan mcp``: the tools, resources and prompts of :mod:`veriplan.mcp` on
the official MCP SDK's server, over stdio or streamable HTTP on loopback.

Every tool runs its work (:mod:`veriplan.mcp.tools`) in a worker thread under
the server's time limit (:mod:`veriplan.mcp.calls`); a refused input or a
veriplan error comes back as a tool error with its message (``isError``), and
anything else as a tool error that names no internals: the server never stops
because of one call.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Callable
from importlib import resources
from typing import Annotated, Literal

import anyio
import anyio.from_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp_types import ToolAnnotations
from pydantic import Field, JsonValue

from veriplan import __version__
from veriplan.core.arguments import BATCH_ITEM
from veriplan.mcp import models as M
from veriplan.mcp import tools as T
from veriplan.mcp.calls import register_tool, run_call
from veriplan.mcp.config import ServerConfig
from veriplan.mcp.methods import register_run_method
from veriplan.mcp.params import (
    BatchDomainPath,
    BatchProblemPath,
    Config,
    ConfigPath,
    Domain,
    DomainPath,
    Format,
    Limit,
    MaxStates,
    Offset,
    Plan,
    Planner,
    PlanPath,
    Problem,
    ProblemPath,
    StepsFirst,
    TimeLimit,
    Tolerance,
    Trace,
)

INSTRUCTIONS = (
    "veriplan checks plans against PDDL tasks with a sound validator: nothing counts as "
    "solved until it says valid. Call validate_plan with a domain, a problem and a plan "
    "(text, or paths inside the server's roots); an invalid verdict names the first "
    "failing step, its false preconditions, the unmet goals and repair hints (actions "
    "that make a missing literal true). check_task reads a task; simulate and "
    "applicable_actions let you look before you act; solve_classical runs a planner "
    "whose plan is re-checked.")

_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                             open_world_hint=False)


def build_server(cfg: ServerConfig) -> MCPServer:
    """The server with every tool, resource and prompt, configured by ``cfg``."""
    tools: list[Tool] = []

    @register_tool(tools, annotations=_READ_ONLY)
    async def validate_plan(domain: Domain = None, domain_path: DomainPath = None,
                            problem: Problem = None, problem_path: ProblemPath = None,
                            plan: Plan = None, plan_path: PlanPath = None,
                            format: Format = "pddl", planbench_config: Config = None,
                            planbench_config_path: ConfigPath = None,
                            trace: Trace = False, tolerance: Tolerance = None,
                            ) -> M.ValidatePlanDoc:
        """Check a plan on a PDDL task with veriplan's sound validator. Returns the typed
        verdict (valid / invalid / unknown), the steps read, the lines left aside and
        why, the first failing step with its false preconditions, the unmet goals, and
        repair hints: the actions that could make each missing literal true."""
        return await run_call(cfg, "validate_plan", lambda d: T.validate_plan(
            cfg, d, domain=domain, domain_path=domain_path, problem=problem,
            problem_path=problem_path, plan=plan, plan_path=plan_path, format=format,
            planbench_config=planbench_config, planbench_config_path=planbench_config_path,
            trace=trace, tolerance=tolerance))

    @register_tool(tools, annotations=_READ_ONLY)
    async def validate_batch(
            items: Annotated[list[dict[str, JsonValue]], Field(
                description="the plans: objects with plan (text or lines) or plan_path, and "
                            "optionally id, domain_path, problem_path, format "
                            "('pddl'/'planbench'), planbench_config_path; an item takes "
                            f"{BATCH_ITEM.valid_text()}")],
            ctx: Context,
            domain_path: BatchDomainPath = None,
            problem_path: BatchProblemPath = None,
            tolerance: Tolerance = None,
    ) -> M.ValidateBatchDoc:
        """Judge many plans in one call (each file parsed once), in order, one record
        each; an item that cannot be judged gets a record with its error, and the rest go
        on. Sends progress notifications when the request asks for them."""
        portal_progress = _progress(ctx)
        return await run_call(cfg, "validate_batch", lambda d: T.validate_batch(
            cfg, d, items, domain_path=domain_path, problem_path=problem_path,
            tolerance=tolerance, progress=portal_progress))

    @register_tool(tools, annotations=_READ_ONLY)
    async def simulate(domain: Domain = None, domain_path: DomainPath = None,
                       problem: Problem = None, problem_path: ProblemPath = None,
                       plan: Plan = None, plan_path: PlanPath = None, format: Format = "pddl",
                       planbench_config: Config = None,
                       planbench_config_path: ConfigPath = None,
                       max_states: MaxStates = None, tolerance: Tolerance = None,
                       ) -> M.SimulateDoc:
        """Execute a plan from the initial state and return the state after each step
        (the trace), up to the first step that cannot run."""
        return await run_call(cfg, "simulate", lambda d: T.simulate(
            cfg, d, domain=domain, domain_path=domain_path, problem=problem,
            problem_path=problem_path, plan=plan, plan_path=plan_path, format=format,
            planbench_config=planbench_config, planbench_config_path=planbench_config_path,
            max_states=max_states, tolerance=tolerance))

    @register_tool(tools, annotations=_READ_ONLY)
    async def applicable_actions(
            domain: Domain = None, domain_path: DomainPath = None, problem: Problem = None,
            problem_path: ProblemPath = None, plan: StepsFirst = None, offset: Offset = 0,
            limit: Limit = 100,
    ) -> M.ApplicableActionsDoc:
        """The ground actions applicable in the initial state, or after the given steps,
        a page at a time (next_offset for the next page)."""
        return await run_call(cfg, "applicable_actions", lambda d: T.applicable_actions(
            cfg, d, domain=domain, domain_path=domain_path, problem=problem,
            problem_path=problem_path, plan=plan, offset=offset, limit=limit))

    @register_tool(tools, annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                                      open_world_hint=False))
    async def solve_classical(
            domain: Domain = None, domain_path: DomainPath = None, problem: Problem = None,
            problem_path: ProblemPath = None, planner: Planner = "fd",
            time_limit: TimeLimit = None,
    ) -> M.SolveClassicalDoc:
        """Solve a PDDL task with a classical planner; the plan is re-checked by
        veriplan's validator (solved is true only then)."""
        return await run_call(cfg, "solve_classical", lambda d: T.solve_classical(
            cfg, d, domain=domain, domain_path=domain_path, problem=problem,
            problem_path=problem_path, planner=planner, time_limit=time_limit))

    @register_tool(tools, annotations=_READ_ONLY)
    async def check_task(domain: Domain = None, domain_path: DomainPath = None,
                         problem: Problem = None, problem_path: ProblemPath = None,
                         ) -> M.CheckTaskDoc:
        """Read a PDDL domain (and problem): errors with line and column, the
        requirements, and whether veriplan supports them."""
        return await run_call(cfg, "check_task", lambda d: T.check_task(
            cfg, d, domain=domain, domain_path=domain_path, problem=problem,
            problem_path=problem_path))

    if cfg.backend is not None:
        register_run_method(tools, cfg)

    server: MCPServer = MCPServer("veriplan", version=__version__, instructions=INSTRUCTIONS,
                                  log_level="WARNING", tools=tools)
    _resources(server)
    _prompts(server)
    return server


def _progress(ctx: Context) -> Callable[[int, int], None]:
    """A progress callback a worker thread may call (every 64th item and the last)."""
    def report(done: int, total: int) -> None:
        if done % 64 and done != total:
            return
        # a client gone away does not stop the batch
        with contextlib.suppress(Exception):
            anyio.from_thread.run(ctx.report_progress, done, total, f"{done}/{total} judged")
    return report


# ----- resources ---------------------------------------------------------------------------
_EXAMPLES = "veriplan.examples"


def _example_names() -> list[str]:
    return sorted(p.name for p in resources.files(_EXAMPLES).iterdir()
                  if p.name.endswith((".pddl", ".txt", ".yaml")))


def _reader(name: str) -> Callable[[], str]:
    def read() -> str:
        return resources.files(_EXAMPLES).joinpath(name).read_text(encoding="utf-8")
    return read


def _resources(server: MCPServer) -> None:
    for name in _example_names():
        mime = "text/x-pddl" if name.endswith(".pddl") else (
            "application/yaml" if name.endswith(".yaml") else "text/plain")

        server.resource(f"veriplan://examples/{name}", name=f"example {name}", mime_type=mime,
                        description="a bundled example (blocksworld domain, problems, "
                                    "plans and a PlanBench config)")(_reader(name))

    @server.resource("veriplan://datasets", name="datasets", mime_type="application/json",
                     description="the data sets veriplan knows, and where they are")
    def datasets() -> str:
        import json

        return json.dumps(_dataset_list(), indent=2)

    @server.resource("veriplan://domains/{name}", name="bundled domain",
                     mime_type="text/x-pddl",
                     description="a PDDL domain shipped in veriplan.domains (see "
                                 "veriplan://datasets)")
    def domain(name: str) -> str:
        files = {p.name: p for p in resources.files("veriplan.domains").iterdir()
                 if p.name.endswith(".pddl")}
        if name not in files:
            raise ResourceError(f"no bundled domain {name!r}: there are "
                                f"{', '.join(sorted(files))}")
        return files[name].read_text(encoding="utf-8")


def _dataset_list() -> dict[str, object]:
    out: dict[str, object] = {
        "examples": [f"veriplan://examples/{n}" for n in _example_names()],
        "domains": [f"veriplan://domains/{p.name}" for p in
                    resources.files("veriplan.domains").iterdir() if p.name.endswith(".pddl")],
    }
    try:
        from veriplan.bench.datasets import DATASETS

        out["benchmarks"] = sorted(DATASETS.names())
    except Exception:  # noqa: BLE001 - the list is informative only
        out["benchmarks"] = []
    return out


# ----- prompts -----------------------------------------------------------------------------
#: Each method's prompt templates: (package, template) -> what the template is.
PROMPTS = {
    "backprompt-task": ("veriplan.methods.backprompt", "pddl_task.j2",
                        "Back-prompting's plan request for a PDDL task"),
    "backprompt-feedback": ("veriplan.methods.backprompt", "feedback.j2",
                            "Back-prompting's feedback after an invalid plan"),
    "closed-loop-plan": ("veriplan.methods.closed_loop", "lp.j2",
                         "The closed loop's plan request (structure and repair notes)"),
    "drip-decompose": ("veriplan.methods.drip", "decompose.j2",
                       "DRIP's goal decomposition request"),
    "cot": ("veriplan.methods.baselines", "cot.j2", "The chain-of-thought baseline"),
    "react": ("veriplan.methods.baselines", "react.j2", "The ReAct baseline"),
}


def _prompts(server: MCPServer) -> None:
    for key, (package, template, about) in PROMPTS.items():
        server.prompt(name=key, description=about)(_template(package, template))


def _template(package: str, template: str) -> Callable[[], str]:
    def show() -> str:
        text = resources.files(package).joinpath("prompts", template).read_text(
            encoding="utf-8")
        return (f"veriplan's {template} template of {package} (Jinja2; the method fills "
                f"its variables):\n\n{text}")
    return show


def serve(cfg: ServerConfig, transport: Literal["stdio", "http"] = "stdio", *,
          port: int = 8765) -> None:
    """Run the server until stdin closes (stdio) or the process is stopped (HTTP,
    bound to 127.0.0.1 only)."""
    import warnings

    from veriplan.errors import PDDLLenientWarning

    server = build_server(cfg)
    with warnings.catch_warnings():
        # --lenient's warnings are not kept for the whole life of the server
        warnings.simplefilter("ignore", PDDLLenientWarning)
        if transport == "stdio":
            anyio.run(_serve_stdio, server)
        else:
            server.run("streamable-http", host="127.0.0.1", port=port)


# ----- stdio on the event loop -------------------------------------------------------------
class _PipeLines:
    """The client's requests, a line at a time, read by the event loop itself (the
    SDK's own stdio transport reads each line in a worker thread)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _PipeLines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class _PipeWriter:
    """The replies, written by the event loop with flow control (``flush`` waits while
    the client does not read); the SDK's stdio transport writes and flushes each
    reply in worker threads."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


def _is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _serve_stdio(server: MCPServer) -> None:
    """The server over stdin and stdout, the same JSON-RPC lines as the SDK's
    ``run("stdio")``, with the pipes read and written on the event loop: a round
    trip then costs no thread hand-offs in the transport (three a call in the SDK's,
    about a third of a no-op call's time). While serving, fds 0 and 1 point at the
    null device and at stderr, as the SDK's transport does, so that nothing a tool
    or a child process prints can reach the wire. A stdin or stdout that is not a
    pipe or a socket (a file, a terminal) is served by the SDK's transport."""
    if not (_is_pipe(0) and _is_pipe(1)):
        await server.run_stdio_async()
        return
    loop = asyncio.get_running_loop()
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        reader = asyncio.StreamReader(limit=2**31 - 1)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                     os.fdopen(wire_in, "rb", buffering=0))
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", buffering=0))
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        lowlevel = server._lowlevel_server
        async with stdio_server(stdin=_PipeLines(reader),  # type: ignore[arg-type]
                                stdout=_PipeWriter(writer)) as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream,
                               lowlevel.create_initialization_options())
        writer.close()
    finally:
        # the pipes were set non-blocking for the loop; whoever shares them gets them back
        for fd in (saved_in, saved_out):
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


def describe(cfg: ServerConfig) -> dict[str, object]:
    """The server as one JSON document (``veriplan mcp --describe``): its limits,
    and each tool's description, input schema and output schema."""
    server = build_server(cfg)

    async def tools() -> list[dict[str, object]]:
        return [{"name": t.name, "description": t.description,
                 "input_schema": t.input_schema, "output_schema": t.output_schema}
                for t in await server.list_tools()]

    doc = M.ServerDoc(server="veriplan", version=__version__, limits=cfg.describe(),
                      tools=[M.ToolDoc(**t) for t in anyio.run(tools)])  # type: ignore[arg-type]
    return doc.model_dump(mode="json")
