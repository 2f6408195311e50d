"""How a tool call runs on the server: its work in a worker thread, in one of
the server's slots, within the time limit; a refused input or a veriplan
error comes back as a tool error with its message, anything else as a tool
error that names no internals. And registering a tool with its docstring as
the description. :mod:`veriplan.mcp.server` and :mod:`veriplan.mcp.methods`
both register their tools through here."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

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


def register_tool(server: MCPServer, *, annotations: ToolAnnotations
          ) -> Callable[[Callable[..., Awaitable[R]]], Callable[..., Awaitable[R]]]:
    """``server.tool`` with the function's docstring, dedented, as the description."""
    def register(fn: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
        return server.tool(description=inspect.cleandoc(fn.__doc__ or ""),
                           annotations=annotations)(fn)
    return register


__all__ = ["register_tool", "run_call"]
