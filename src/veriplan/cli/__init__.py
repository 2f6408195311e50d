"""The ``veriplan`` command line: the only place that prints and exits."""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import TYPE_CHECKING, Any, NoReturn

from veriplan import __version__
from veriplan.cli import core
from veriplan.cli.core import EXIT_BUG, EXIT_PIPE, EXIT_USAGE
from veriplan.cli.runs import method_commands
from veriplan.errors import PDDLLenientWarning, VeriplanError

if TYPE_CHECKING:
    import argparse
    from types import SimpleNamespace

# The modules that add the commands every method shares besides core's (a method's
# own commands come from its registration: runs.method_commands). They are imported when
# the whole command line is built, not for ``validate``: their options import much
# of veriplan, which a run of ``validate --batch`` over thousands of plans should not
# wait for.
_COMMAND_MODULES = ("llm_commands", "bench_commands", "env_commands", "import_commands",
                    "mcp_commands", "paper_commands")


def _commands() -> dict[str, Any]:
    """Every command's handler, by name (built once)."""
    commands = globals().get("COMMANDS")
    if commands is None:
        commands = dict(core.COMMANDS)
        for name in _COMMAND_MODULES:
            commands.update(importlib.import_module(f"veriplan.cli.{name}").COMMANDS)
        for module in method_commands():
            commands.update(module.COMMANDS)
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
        import argparse

        raise argparse.ArgumentTypeError(str(exc)) from None


def _size_value(text: str) -> int:
    """--max-bytes read by :func:`_batch_args` (ValueError: argparse says why)."""
    from veriplan.pddl.inputs import parse_size

    return parse_size(text)


def _tolerance(text: str) -> float:
    """--tolerance read by argparse (its error says what to give)."""
    try:
        return _tolerance_value(text)
    except ValueError as exc:
        import argparse

        raise argparse.ArgumentTypeError(str(exc)) from None


def _tolerance_value(text: str) -> float:
    """--tolerance read by :func:`_batch_args` (ValueError: argparse says why)."""
    from veriplan.core.arguments import ARGUMENTS, ArgumentError

    try:  # the contract's range, as the MCP tools' tolerance is checked
        return float(ARGUMENTS["tolerance"].number(text, "--tolerance"))
    except ArgumentError as exc:
        raise ValueError(f"{exc.message} (VAL's default is 0.01)") from None


def _parser(only_validate: bool = False) -> argparse.ArgumentParser:
    """The whole command line; ``only_validate``: the validate command alone (the
    other commands' options import much of veriplan, which a run of
    ``validate --batch`` over thousands of plans should not wait for)."""
    import argparse

    ap = _parser_class()(
        prog="veriplan",
        description="Planning with LLMs, where nothing counts as solved until a sound "
                    "verifier has checked it.")
    ap.add_argument("--version", action="version", version=f"veriplan {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    v = sub.add_parser(
        "validate", help="check a plan against a PDDL task (or many: --batch)",
        usage="veriplan validate --domain D --problem P --plan FILE [options]\n"
              "       veriplan validate --batch FILE.jsonl [--workers N] [--window N] "
              "[--base-dir DIR [--confine]] [--tolerance T]",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="--batch reads JSON Lines, one plan a line:\n"
               "  {\"id\": ..., \"domain\": PATH, \"problem\": PATH, \"plan\": TEXT}\n"
               "(or \"plan_file\": PATH; optional \"format\": \"planbench\" with "
               "\"planbench_config\": PATH),\nand prints one JSON record per line, in "
               "order (blank lines are skipped; each record\nnames its input \"line\"). "
               "The MCP tools' names are read too (domain_path,\nproblem_path, plan_path, "
               "planbench_config_path); a line with any other key is\nnot judged "
               "(docs/json.md: one argument contract).\n\n"
               "--window N: a domain or problem file is looked at (size, time, inode) once\n"
               "every N lines (records still go out as their lines are judged; with\n"
               "--workers, the lines the workers get at a time): a file changed during the\n"
               "run is read again from the next window on. Default: 10000 for a batch file,\n"
               "2000 with --workers, 1 for standard input or a pipe (whose lines may name\n"
               "files written as they come: each looked at again whenever a line names\n"
               "another than the line before).\n\n"
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
    v.add_argument("--window", type=int, default=None, metavar="N",
                   help="--batch: look at each domain and problem file once every N lines "
                        "(default 10000 for a file, 2000 with --workers, 1 for standard "
                        "input or a pipe; see below)")
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
    v.add_argument("-t", "--tolerance", type=_tolerance, default=None, metavar="T",
                   help="VAL's -t, for timed plans (also with --batch): a step's duration "
                        "may miss its constraint by T, and steps at most T/10 apart in "
                        "time are one happening (a positive number; default 0.01)")
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
        bench_commands,
        env_commands,
        import_commands,
        inspect_commands,
        llm_commands,
        mcp_commands,
        paper_commands,
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
    env_commands.add_parsers(sub)
    inspect_commands.add_parsers(sub, _commands())
    import_commands.add_parsers(sub)
    mcp_commands.add_parsers(sub)
    paper_commands.add_parsers(sub)
    for module in method_commands():  # each method's own (AutoToS, SQ-BCP's ask, AEC, ...)
        module.add_parsers(sub)
    return ap


# Whether the command line being run asked for --json: its usage errors are then
# one JSON error document rather than argparse's exit.
_JSON_ERRORS = False


class _UsageError(Exception):
    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.command = prog.removeprefix("veriplan").strip()
        self.message = message


def _parser_class() -> type[argparse.ArgumentParser]:
    """argparse's parser, whose usage errors under ``--json`` become an error
    document (the usage and the message still go to standard error). Made on
    first use: ``validate --batch FILE`` is read without argparse (see
    :func:`_batch_args`)."""
    cls = globals().get("_PARSER")
    if cls is not None:
        return cls
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            if not _JSON_ERRORS:
                super().error(message)
            self.print_usage(sys.stderr)
            print(f"{self.prog}: error: {message}", file=sys.stderr)
            raise _UsageError(self.prog, message)

    globals()["_PARSER"] = _Parser
    return _Parser


# The options of ``validate --batch`` read by _batch_args: name -> how its value is
# read (None: a flag), as the validate parser of _parser reads it.
_BATCH_OPTIONS = {"--batch": str, "--workers": int, "--window": int, "--base-dir": str,
                  "--max-bytes": _size_value, "--confine": None, "--lenient": None,
                  "--tolerance": _tolerance_value}
# Every attribute the validate parser sets, with its default.
_VALIDATE_DEFAULTS = {"domain": None, "problem": None, "lenient": False, "plan": None,
                      "batch": None, "workers": 1, "window": None, "base_dir": None,
                      "confine": False, "tolerance": None,
                      "max_bytes": None, "format": "pddl", "planbench_config": None,
                      "json": False, "trace": False, "explain_reading": False}


def _batch_args(argv: list[str]) -> SimpleNamespace | None:
    """The arguments of the common ``veriplan validate --batch FILE [--workers N]
    [--window N] [--base-dir DIR] [--confine] [--max-bytes SIZE] [--lenient]
    [--tolerance T]``, read without
    argparse (building its parser costs a batch run more than judging a few hundred
    plans): the same attributes and values as ``_parser().parse_args(argv)``. None
    for any other command line, also one argparse would read the same way (an
    option repeated, abbreviated or written ``--opt=value``, a value that starts
    with ``-``, a value its type refuses): argparse reads those, and says what is
    wrong."""
    if argv[:1] != ["validate"] or "--batch" not in argv:
        return None
    values: dict[str, str | int | bool] = {}
    i = 1
    while i < len(argv):
        option = argv[i]
        if option not in _BATCH_OPTIONS or option in values:
            return None
        read = _BATCH_OPTIONS[option]
        if read is None:
            values[option] = True
            i += 1
            continue
        if i + 1 == len(argv):
            return None
        value = argv[i + 1]
        if value[:1] == "-" and value != "-":
            return None
        try:
            values[option] = read(value)
        except (ValueError, TypeError):  # argparse's error says what is wrong
            return None
        i += 2
    from types import SimpleNamespace

    args = SimpleNamespace(command="validate", **_VALIDATE_DEFAULTS)
    for option, value in values.items():
        setattr(args, option[2:].replace("-", "_"), value)
    args.usage_error = _validate_usage_error
    return args


def _validate_usage_error(message: str) -> NoReturn:
    """The validate parser's usage error (``_batch_args`` read the command line)."""
    _parser(only_validate=True).parse_args(["validate"]).usage_error(message)
    raise AssertionError("unreachable: argparse's error exits")


# The option that names a command's sub-command where it is not ``<command>_command``
# (``llm_command``, ``aec_command``: a method's commands follow that rule).
_SUBCOMMANDS = {"import": "import_kind"}


def command_path(args: argparse.Namespace) -> str:
    """The command run, with its sub-command (``aec run``)."""
    words = [args.command]
    dest = _SUBCOMMANDS.get(args.command, f"{args.command.replace('-', '_')}_command")
    if getattr(args, dest, None):
        words.append(getattr(args, dest))
    return " ".join(words)


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``, as the ``veriplan``
    command and ``python -m veriplan.cli`` run it, and the process then ends)."""
    global _JSON_ERRORS
    if argv is None:
        core.PROCESS_ENDS = True
        argv = sys.argv[1:]
    _JSON_ERRORS = "--json" in argv
    try:
        return _main(argv)
    finally:
        _JSON_ERRORS = False


def _main(argv: list[str]) -> int:
    only_validate = argv[:1] == ["validate"]
    try:
        args = _batch_args(argv) if only_validate else None
        if args is None:
            args = _parser(only_validate=only_validate).parse_args(argv)
    except _UsageError as exc:
        # an error of the top-level parser names no command: the words given before
        # the first option (``mcp`` of ``veriplan mcp --nope``)
        first_option = next((i for i, w in enumerate(argv) if w.startswith("-")), len(argv))
        words = exc.command or " ".join(argv[:first_option][:2])
        from veriplan.cli import jsondoc

        with jsondoc.json_mode():
            jsondoc.emit_error(words, jsondoc.ErrorKind.USAGE, exc.message, EXIT_USAGE)
        return EXIT_USAGE
    commands = core.COMMANDS if only_validate else _commands()
    if getattr(sys.stdout, "errors", None) == "strict":  # text no encoding holds: escaped
        core._set_errors(sys.stdout, "backslashreplace")
    if not getattr(args, "json", False):
        return _run(commands, args, json=False)
    from veriplan.cli import jsondoc

    with jsondoc.json_mode():
        return _run(commands, args, json=True)


def _run(commands: dict[str, Any], args: argparse.Namespace, *, json: bool) -> int:
    """Run the command; errors said on standard error (under ``--json``, also as
    the error document), with their exit codes."""

    def fail(kind: str | None, message: str, code: int,
             exc: BaseException | None = None) -> int:
        """``kind``: the name of a :class:`~veriplan.cli.jsondoc.ErrorKind`, or None
        for ``exc``'s kind; the error document is written under ``--json`` only (the
        document writer is imported then: a run without --json does without it)."""
        if json:
            from veriplan.cli import jsondoc

            which = jsondoc.error_kind(exc) if kind is None else jsondoc.ErrorKind[kind]
            jsondoc.emit_error(command_path(args), which, message, code, exc=exc)
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
        return fail("USAGE", exc.message, EXIT_USAGE)
    except VeriplanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return fail(None, str(exc), EXIT_USAGE, exc)
    except KeyboardInterrupt:
        return fail("INTERRUPTED", "stopped by the user (Ctrl-C)", 130)
    except Exception:  # a crash of veriplan is always a bug: say so, with the traceback
        import traceback

        traceback.print_exc()
        print("internal error: this is a bug in veriplan; please report it with the "
              "traceback above", file=sys.stderr)
        return fail("INTERNAL", "internal error: this is a bug in veriplan; "
                    "please report it with the traceback printed on standard error",
                    EXIT_BUG)
