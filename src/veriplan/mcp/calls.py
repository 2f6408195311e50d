"""How a tool call runs on the server: its work in a worker thread, in one of
the server's slots, within the time limit; a refused input or a veriplan
error comes back as a tool error with its message, anything else as a tool
error that names no internals. And making a tool (:class:`ContractTool`) with
its docstring as the description, whose arguments are checked against the
argument contract (:mod:`veriplan.core.arguments`) before the SDK reads them:
an unknown argument is refused with the valid names, as in a batch item, and
numbers out of range with the range. :mod:`veriplan.mcp.server` and
:mod:`veriplan.mcp.methods` both make their tools through here."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeAlias, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import BaseModel

from veriplan.core.arguments import TOOLS, ArgumentError
from veriplan.errors import VeriplanError
from veriplan.mcp import tools as T
from veriplan.mcp.config import ServerConfig, ToolInputError

R = TypeVar("R")


async def run_call(cfg: ServerConfig, name: str, work: Callable[[T.Deadline], R],
               limit: float | None = None) -> R:
    """``work(deadline)`` in a worker thread within the time limit, its errors as
    tool errors. A call over the limit (or cancelled by the client) is answered at
    once; the worker stops at its next check of the deadline."""
    seconds = cfg.time_limit if limit is None else limit
    deadline = T.Deadline(seconds)
    try:
        with anyio.fail_after(seconds + 1.0):
            return await anyio.to_thread.run_sync(functools.partial(_slot, cfg, name, work,
                                                                    deadline),
                                                  abandon_on_cancel=True)
    except TimeoutError:
        deadline.cancelled.set()
        raise ToolError(f"{name} took longer than the server's limit of "
                        f"{seconds:g} s (--time-limit)") from None
    except anyio.get_cancelled_exc_class():
        deadline.cancelled.set()
        raise
    except VeriplanError as exc:
        raise ToolError(str(exc)) from None
    except RecursionError:
        raise ToolError(f"{name}: the input nests too deeply to be read") from None
    except MemoryError:
        raise ToolError(f"{name}: the input needs more memory than the server has") from None


def _slot(cfg: ServerConfig, name: str, work: Callable[[T.Deadline], R],
          deadline: T.Deadline) -> R:
    """``work`` in one of the server's slots, held until the work ends (also past a
    time limit the client was already told of), so that calls that do not stop
    cannot pile up threads: with every slot taken, the call is refused as busy."""
    if not cfg.slots.acquire(blocking=False):
        raise ToolInputError(f"{name}: the server is busy ({cfg.max_calls} calls at work, "
                             "--max-calls); try again shortly")
    try:
        return work(deadline)
    finally:
        cfg.slots.release()


if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

#: What a tool call gives back: the tool's own document (every veriplan tool returns
#: a pydantic model of :mod:`veriplan.mcp.models`), or with ``convert_result`` the
#: SDK's result made of it; either may be the SDK's request for more input.
ToolOutput: TypeAlias = CallToolResult | InputRequiredResult | BaseModel


class ContractTool(Tool):
    """A tool whose arguments are checked against its record in
    :data:`veriplan.core.arguments.TOOLS` first: a key the tool does not take (the
    SDK alone would drop it unseen), a value of the wrong kind or a number out of
    range (NaN, infinity, zero or a negative count) is a tool error that names the
    key and the fix, in the words every face uses."""

    async def run(self, arguments: dict[str, object],  # type: ignore[override]
                  context: Context, convert_result: bool = False) -> ToolOutput:
        record = TOOLS.get(self.name)
        if record is not None:
            try:
                record.check(arguments)
            except ArgumentError as exc:
                raise ToolError(f"Error executing tool {self.name}: {exc}") from None
        return await super().run(arguments, context, convert_result=convert_result)


def register_tool(tools: list[Tool], *, annotations: ToolAnnotations
          ) -> Callable[[Callable[..., Awaitable[R]]], Callable[..., Awaitable[R]]]:
    """Add the function to ``tools`` as a :class:`ContractTool`, with its docstring,
    dedented, as the description (the server is made with the list)."""
    def register(fn: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
        tools.append(ContractTool.from_function(
            fn, description=inspect.cleandoc(fn.__doc__ or ""), annotations=annotations))
        return fn
    return register


__all__ = ["ContractTool", "ToolOutput", "register_tool", "run_call"]
