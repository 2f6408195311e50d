"""``veriplan mcp``: the Model Context Protocol server (veriplan.mcp)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from veriplan.cli.core import EXIT_OK
from veriplan.errors import VeriplanError

if TYPE_CHECKING:
    from veriplan.mcp.config import ServerConfig


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from veriplan.llm.registry import available

    m = sub.add_parser(
        "mcp", help="serve veriplan's checks to agents: a Model Context Protocol server "
                    "(stdio, or streamable HTTP on 127.0.0.1)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="An MCP host starts it as a command, e.g. (Claude Desktop, Cursor, ...):\n"
               "  {\"mcpServers\": {\"veriplan\": {\"command\": \"veriplan\",\n"
               "     \"args\": [\"mcp\", \"--root\", \"/path/to/tasks\"]}}}\n\n"
               "Tools: validate_plan, validate_batch, simulate, applicable_actions,\n"
               "solve_classical, check_task, and run_method (with --backend). Paths\n"
               "must lead inside a --root (default: the current directory), also\n"
               "through symlinks and '..'. See docs/mcp.md.")
    m.add_argument("--root", action="append", default=[], metavar="DIR",
                   help="a directory path arguments may lead into (repeatable; default: "
                        "the current directory); relative paths start from the first")
    m.add_argument("--http", action="store_true",
                   help="serve streamable HTTP on 127.0.0.1 instead of stdio")
    m.add_argument("--port", type=int, default=8765, help="--http: the port (default 8765)")
    m.add_argument("--max-bytes", default="4M", metavar="SIZE",
                   help="the largest text or file one call may hand in (default 4M)")
    m.add_argument("--time-limit", type=float, default=60.0, metavar="SECONDS",
                   help="the longest one call may run (default 60)")
    m.add_argument("--method-time-limit", type=float, default=600.0, metavar="SECONDS",
                   help="the longest run_method may run (default 600)")
    m.add_argument("--max-items", type=int, default=10_000,
                   help="the most plans one validate_batch call may hold (default 10000)")
    m.add_argument("--max-calls", type=int, default=8, metavar="N",
                   help="the most calls at work at once; more are refused as busy "
                        "(default 8)")
    m.add_argument("--lenient", action="store_true",
                   help="accept known defects of published domains with a warning")
    m.add_argument("--backend", choices=sorted(available()), default=None,
                   help="the language model of run_method (without it, run_method is not "
                        "offered)")
    m.add_argument("--model", help="the backend's model name")
    m.add_argument("--model-path", help="a GGUF file for llamacpp")
    m.add_argument("--base-url", help="an OpenAI-compatible endpoint")
    m.add_argument("--script", help="'module:function' answering requests (--backend "
                                    "scripted, a test double)")
    m.add_argument("--cassette", help="recorded answers (JSONL) for --backend replay")
    m.add_argument("--describe", action="store_true",
                   help="print the tools, their input and output schemas and the limits as "
                        "one JSON document, and exit (no server)")


def config_of(args: argparse.Namespace) -> ServerConfig:
    from veriplan.mcp.config import Roots, ServerConfig
    from veriplan.pddl.inputs import parse_size

    try:
        max_bytes = parse_size(args.max_bytes)
    except ValueError as exc:
        raise VeriplanError(f"--max-bytes: {exc}") from None
    from veriplan.core.arguments import SERVER_OPTIONS

    # the contract's ranges (veriplan.core.arguments): NaN and infinity refused too
    for flag, value in (("--time-limit", args.time_limit),
                        ("--method-time-limit", args.method_time_limit),
                        ("--max-items", args.max_items), ("--max-calls", args.max_calls),
                        ("--port", args.port)):
        SERVER_OPTIONS[flag].number(value, flag, "veriplan mcp")
    # API keys come from the environment (OPENAI_API_KEY, ...), never from the command
    # line, where other users of the machine could read them.
    options = {k: v for k, v in (("model", args.model), ("model_path", args.model_path),
                                 ("base_url", args.base_url), ("script", args.script),
                                 ("cassette", args.cassette)) if v is not None}
    return ServerConfig(roots=Roots.of(args.root), max_bytes=max_bytes,
                        time_limit=args.time_limit, method_time_limit=args.method_time_limit,
                        max_items=args.max_items, backend=args.backend,
                        backend_options=options, lenient=args.lenient,
                        max_calls=args.max_calls)


def _mcp(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise VeriplanError("veriplan mcp needs the MCP SDK: pip install 'veriplan[mcp]' "
                            "(or pip install 'mcp>=2.3,<3')") from None
    cfg = config_of(args)
    if args.describe:
        from veriplan.cli.jsondoc import emit
        from veriplan.mcp.server import describe

        emit("mcp_server", describe(cfg))
        return EXIT_OK
    from veriplan.mcp.server import serve

    if args.http:
        print(f"veriplan mcp: streamable HTTP on http://127.0.0.1:{args.port}/mcp",
              file=sys.stderr)
    serve(cfg, "http" if args.http else "stdio", port=args.port)
    return EXIT_OK


COMMANDS = {"mcp": _mcp}
