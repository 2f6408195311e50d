"""The ``veriplan`` command line: the only place that prints and exits."""

from __future__ import annotations

import argparse
import importlib
import sys
import warnings
from typing import Any, NoReturn

from veriplan import __version__
from veriplan.cli import core
from veriplan.cli.core import EXIT_BUG, EXIT_PIPE, EXIT_USAGE
from veriplan.errors import PDDLLenientWarning, VeriplanError

# The modules that add commands besides core's. They are imported when the whole
# command line is built, not for ``validate``: their options import much of
# veriplan, which a run of ``validate --batch`` over thousands of plans should not
# wait for.
_COMMAND_MODULES = ("llm_commands", "bench_commands", "autotos_commands", "env_commands",
                    "ask_commands", "aec_commands", "import_commands", "mcp_commands")


def _commands() -> dict[str, Any]:
    """Every command's handler, by name (built once)."""
    commands = globals().get("COMMANDS")
    if commands is None:
        commands = dict(core.COMMANDS)
        for name in _COMMAND_MODULES:
            commands.update(importlib.import_module(f"veriplan.cli.{name}").COMMANDS)
        globals()["COMMANDS"] = commands
    return commands


def __getattr__(name: str) -> Any:
    if name == "COMMANDS":  # every command's handler, by name
        return _commands()
    raise AttributeError(f"module 'veriplan.cli' has no attribute {name!r}")


def _task_args(p: argparse.ArgumentParser, positional: bool) -> None:
    if positional:
        p.add_argument("domain", help="PDDL domain file")
        p.add_argument("problem", help="PDDL problem file")
    else:
        p.add_argument("--domain", required=True, help="PDDL domain file")
        p.add_argument("--problem", required=True, help="PDDL problem file")
    p.add_argument("--lenient", action="store_true",
                   help="accept known defects of published domains (type misuse, a declared "
                        "'object' type, stray commas) with a warning instead of an error")


def _size(text: str) -> int:
    from veriplan.pddl.inputs import parse_size

    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser(only_validate: bool = False) -> argparse.ArgumentParser:
    """The whole command line; ``only_validate``: the validate command alone (the
    other commands' options import much of veriplan, which a run of
    ``validate --batch`` over thousands of plans should not wait for)."""
    ap = _Parser(
        prog="veriplan",
        description="Planning with LLMs, where nothing counts as solved until a sound "
                    "verifier has checked it.")
    ap.add_argument("--version", action="version", version=f"veriplan {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    v = sub.add_parser(
        "validate", help="check a plan against a PDDL task (or many: --batch)",
        usage="veriplan validate --domain D --problem P --plan FILE [options]\n"
              "       veriplan validate --batch FILE.jsonl [--workers N] [--base-dir DIR "
              "[--confine]]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="--batch reads JSON Lines, one plan a line:\n"
               "  {\"id\": ..., \"domain\": PATH, \"problem\": PATH, \"plan\": TEXT}\n"
               "(or \"plan_file\": PATH; optional \"format\": \"planbench\" with "
               "\"planbench_config\": PATH),\nand prints one JSON record per line, in "
               "order (blank lines are skipped; each record\nnames its input \"line\").\n\n"
               "A batch file names the files veriplan reads: from someone else, run it with\n"
               "--base-dir DIR --confine (paths may not leave DIR, through symlinks or '..').\n"
               "Files (and --batch lines) over --max-bytes (default 64M) and devices are\n"
               "refused.\n\n"
               "exit codes: 0 valid (--batch: every line judged and valid), 1 not valid\n"
               "(--batch: every line judged, some not valid), 2 usage, parse or input error\n"
               "(a file that cannot be read), 3 internal error (a bug), 4 (--batch) some\n"
               "lines could not be judged (their records carry an \"error\"), or the output\n"
               "was closed before the end.\n")
    v.set_defaults(usage_error=v.error)  # _validate checks which options go together
    v.add_argument("--domain", help="PDDL domain file")
    v.add_argument("--problem", help="PDDL problem file")
    v.add_argument("--lenient", action="store_true",
                   help="accept known defects of published domains (type misuse, a declared "
                        "'object' type, stray commas) with a warning instead of an error")
    v.add_argument("--plan", help="plan file ('-' for standard input)")
    v.add_argument("--batch", metavar="FILE.jsonl",
                   help="judge many plans: JSON Lines file ('-' for standard input)")
    v.add_argument("--workers", type=int, default=1, metavar="N",
                   help="--batch: judge in N processes (order kept; default 1)")
    v.add_argument("--base-dir", metavar="DIR",
                   help="--batch: read relative paths relative to DIR (default: the "
                        "current directory)")
    v.add_argument("--confine", action="store_true",
                   help="--batch: refuse every path that leads outside --base-dir (or the "
                        "current directory), also through symlinks or '..': for a batch "
                        "file you did not write")
    v.add_argument("--max-bytes", type=_size, default=None, metavar="SIZE",
                   help="refuse files (and --batch lines) larger than SIZE: bytes, or with "
                        "K, M or G (default 64M)")
    v.add_argument("--format", choices=["pddl", "planbench"], default="pddl",
                   help="plan format: (action args) lines, or PlanBench natural language")
    v.add_argument("--planbench-config", help="PlanBench YAML config (for --format planbench)")
    v.add_argument("--json", action="store_true", help="print the ValidationResult as JSON")
    v.add_argument("--trace", action="store_true", help="include the state trace")
    v.add_argument("--explain-reading", action="store_true",
                   help="show which lines of the plan file became which step and why each "
                        "other line was left aside (with --json: a 'reading' list)")
    if only_validate:
        return ap

    from veriplan.cli import (
        aec_commands,
        ask_commands,
        autotos_commands,
        bench_commands,
        env_commands,
        import_commands,
        inspect_commands,
        llm_commands,
        mcp_commands,
    )

    s = sub.add_parser("solve-classical", help="solve a PDDL task with a classical planner "
                                                "and validate the plan")
    _task_args(s, positional=True)
    from veriplan.planners.classical import PLANNERS

    s.add_argument("--planner", choices=list(PLANNERS), default="fd",
                   help="fd (Fast Downward, lama-first), fd-optimal (A* + LM-cut), or our "
                        "own bfs / astar-hadd / astar-hff / gbfs-hff (default: fd)")
    s.add_argument("--time-limit", type=float, default=300, help="seconds (default 300)")
    s.add_argument("--json", action="store_true", help="print the result as JSON")

    o = sub.add_parser("obfuscate", help="rename actions, predicates and objects "
                                          "(Mystery style) and write the renamed task")
    _task_args(o, positional=True)
    o.add_argument("--seed", type=int, default=0, help="seed of the random vocabulary")
    o.add_argument("--mapping", help="JSON file with a given renaming "
                                     "({actions: {...}, predicates: {...}, objects: {...}})")
    o.add_argument("--out", required=True, help="directory for domain.pddl, problem.pddl "
                                                "and renaming.json")
    o.add_argument("--json", action="store_true",
                   help="print the files written and the renaming as JSON")

    r = sub.add_parser("prompt", help="render a task as a PlanBench plan-generation prompt")
    _task_args(r, positional=True)
    r.add_argument("--planbench-config", required=True, help="PlanBench YAML config")
    r.add_argument("--example-problem", help="problem file of the one-shot example")
    r.add_argument("--example-plan", help="plan of the one-shot example "
                                          "(default: solved by our BFS)")
    r.add_argument("--json", action="store_true",
                   help="print the prompt and the one-shot example's plan as JSON")
    llm_commands.add_parsers(sub, _task_args)
    bench_commands.add_parsers(sub)
    autotos_commands.add_parsers(sub)
    env_commands.add_parsers(sub)
    ask_commands.add_parsers(sub)
    aec_commands.add_parsers(sub)
    inspect_commands.add_parsers(sub, _commands())
    import_commands.add_parsers(sub)
    mcp_commands.add_parsers(sub)
    return ap


# Whether the command line being run asked for --json: its usage errors are then
# one JSON error document rather than argparse's exit.
_JSON_ERRORS = False


class _UsageError(Exception):
    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.command = prog.removeprefix("veriplan").strip()
        self.message = message


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors under ``--json`` become an error
    document (the usage and the message still go to standard error)."""

    def error(self, message: str) -> NoReturn:
        if not _JSON_ERRORS:
            super().error(message)
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise _UsageError(self.prog, message)


# The options that name a command's sub-command, in the order they nest.
_SUBCOMMANDS = ("llm_command", "model_command", "autotos_command", "env_command",
                "aec_command", "import_kind")


def command_path(args: argparse.Namespace) -> str:
    """The command run, with its sub-command (``aec run``)."""
    words = [args.command]
    words += [getattr(args, d) for d in _SUBCOMMANDS if getattr(args, d, None)]
    return " ".join(words)


def main(argv: list[str] | None = None) -> int:
    global _JSON_ERRORS
    argv = sys.argv[1:] if argv is None else argv
    _JSON_ERRORS = "--json" in argv
    try:
        return _main(argv)
    finally:
        _JSON_ERRORS = False


def _main(argv: list[str]) -> int:
    from veriplan.cli import jsondoc

    only_validate = argv[:1] == ["validate"]
    try:
        args = _parser(only_validate=only_validate).parse_args(argv)
    except _UsageError as exc:
        # an error of the top-level parser names no command: the words given before
        # the first option (``mcp`` of ``veriplan mcp --nope``)
        first_option = next((i for i, w in enumerate(argv) if w.startswith("-")), len(argv))
        words = exc.command or " ".join(argv[:first_option][:2])
        with jsondoc.json_mode():
            jsondoc.emit_error(words, jsondoc.ErrorKind.USAGE, exc.message, EXIT_USAGE)
        return EXIT_USAGE
    commands = core.COMMANDS if only_validate else _commands()
    if getattr(sys.stdout, "errors", None) == "strict":  # text no encoding holds: escaped
        core._set_errors(sys.stdout, "backslashreplace")
    if not getattr(args, "json", False):
        return _run(commands, args, json=False)
    with jsondoc.json_mode():
        return _run(commands, args, json=True)


def _run(commands: dict[str, Any], args: argparse.Namespace, *, json: bool) -> int:
    """Run the command; errors said on standard error (under ``--json``, also as
    the error document), with their exit codes."""
    from veriplan.cli import jsondoc

    def fail(kind: jsondoc.ErrorKind, message: str, code: int,
             exc: BaseException | None = None) -> int:
        if json:
            jsondoc.emit_error(command_path(args), kind, message, code, exc=exc)
        return code

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PDDLLenientWarning)
            code = commands[args.command](args)
            sys.stdout.flush()  # a closed pipe shows here, not at the interpreter's exit
        for w in caught:
            if issubclass(w.category, PDDLLenientWarning):
                print(f"warning: {w.message}", file=sys.stderr)
        return code
    except BrokenPipeError:  # the reader of our output went away (| head): end quietly
        if not json:  # (under --json, stdout is stderr here: json_mode quiets the pipe)
            core.quiet_stdout()
        return EXIT_PIPE
    except _UsageError as exc:  # options that do not go together (under --json only)
        return fail(jsondoc.ErrorKind.USAGE, exc.message, EXIT_USAGE)
    except VeriplanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return fail(jsondoc.error_kind(exc), str(exc), EXIT_USAGE, exc)
    except KeyboardInterrupt:
        return fail(jsondoc.ErrorKind.INTERRUPTED, "stopped by the user (Ctrl-C)", 130)
    except Exception:  # a crash of veriplan is always a bug: say so, with the traceback
        import traceback

        traceback.print_exc()
        print("internal error: this is a bug in veriplan; please report it with the "
              "traceback above", file=sys.stderr)
        return fail(jsondoc.ErrorKind.INTERNAL, "internal error: this is a bug in veriplan; "
                    "please report it with the traceback printed on standard error",
                    EXIT_BUG)
