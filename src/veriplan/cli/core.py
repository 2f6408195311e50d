"""Core commands: validate, solve-classical, obfuscate, prompt."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING

from veriplan.errors import VeriplanError

if TYPE_CHECKING:
    import argparse

# argparse, pathlib and the JSON document writer (veriplan.cli.jsondoc) are imported
# where they are used: a run of ``validate --batch`` does without them.

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3
EXIT_PIPE = 141  # the output was closed (| head): 128 + SIGPIPE, as a shell reports it


def load_task_args(args: argparse.Namespace):
    from veriplan.pddl.task import load_task

    return load_task(args.domain, args.problem, strict=not args.lenient,
                     max_bytes=getattr(args, "max_bytes", None))


def read_text(path: str, what: str, max_bytes: int | None = None) -> str:
    """A text file the user gave (``-``: standard input), within the size limit
    (``--max-bytes``), UTF-8 (a byte-order mark dropped); a pipe is read, a device
    refused. Raises an :class:`~veriplan.errors.InputFileError` that names the
    file and never quotes it."""
    from veriplan.pddl import inputs

    if path == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in place of stdin (tests)
            text = sys.stdin.read()
            return text[1:] if text[:1] == inputs.BOM else text
        data = inputs.read_stream(stream, what=what, max_bytes=max_bytes)
        return inputs.decode(data, "<stdin>", what)
    return inputs.read_text(path, what=what, max_bytes=max_bytes, pipes=True)


EXIT_UNJUDGED = 4  # validate --batch: some lines could not be judged

#: Whether the process ends when the command returns (``veriplan.cli.main`` reading
#: ``sys.argv``): validate --batch then leaves its start-up's objects out of the
#: collection at the interpreter's exit too.
PROCESS_ENDS = False


def _validate(args: argparse.Namespace) -> int:
    if args.batch is not None:
        return _validate_batch(args)
    from veriplan.planio import parse_plan
    from veriplan.verify import validate_plan

    given = [o for o, v in (("--workers", args.workers != 1), ("--base-dir", args.base_dir),
                            ("--confine", args.confine),
                            ("--window", getattr(args, "window", None) is not None)) if v]
    if given:
        verb = "goes" if len(given) == 1 else "go"
        args.usage_error(f"{' and '.join(given)} {verb} with --batch FILE.jsonl only")
    missing = [o for o, v in (("--domain", args.domain), ("--problem", args.problem),
                              ("--plan", args.plan)) if not v]
    if missing:
        args.usage_error(f"validate needs {', '.join(missing)} (or --batch FILE.jsonl to "
                         "judge many plans)")
    if args.format == "planbench" and not args.planbench_config:
        raise VeriplanError("--format planbench needs --planbench-config "
                            "(e.g. configs/blocksworld.yaml of PlanBench)")
    config = None
    if args.planbench_config:
        from veriplan.planio import PlanBenchConfig

        config = PlanBenchConfig.from_yaml(args.planbench_config, max_bytes=args.max_bytes)
    task = load_task_args(args)
    text = read_text(args.plan, "plan file", args.max_bytes)
    parsed = parse_plan(text, task, format=args.format, config=config)
    result = validate_plan(task, parsed, trace=args.trace,  # unread lines: not valid
                           **_tolerance_of(args))
    reading = None
    if getattr(args, "explain_reading", False):
        from veriplan.planio.explain import explain_reading, render_reading

        reading = explain_reading(text, parsed)
    if args.json:
        record = result.to_dict()
        if reading is not None:
            record["reading"] = reading
        from veriplan.cli.jsondoc import emit

        emit("validate", record)
    else:
        if reading is not None:
            print("\n".join(render_reading(reading)))
        for u in result.unread:
            print(f"unread: {u}")
        print(("valid: " if result.valid else "not valid: ") + result.feedback())
        if result.metric is not None:
            m = result.metric
            print(f"metric: {m.direction.value} {m.expression} = {m.text}")
        if result.preferences is not None and result.preferences.counts:  # VAL's "Violations:"
            shown = result.preferences.violated()
            print("violations: " + (", ".join(f"{n} {c}" for n, c in shown.items())
                                    if shown else "none"))
        if args.trace and result.trace is not None:
            for i, state in enumerate(result.trace):
                print(f"state {i}: {' '.join(state)}")
    return EXIT_OK if result.valid else EXIT_FAIL


def _tolerance_of(args: argparse.Namespace) -> dict[str, float]:
    """``tolerance=`` for the validator when ``--tolerance`` was given (VAL's ``-t``)."""
    t = getattr(args, "tolerance", None)
    return {} if t is None else {"tolerance": t}


def _validate_batch(args: argparse.Namespace) -> int:
    """validate --batch: one JSON record per input line on stdout, in order."""
    import gc
    import warnings

    from veriplan.errors import PDDLLenientWarning

    # The judging modules' import makes some hundred thousand objects that live as long
    # as the process, and no garbage: no collection while they are made, and they are
    # left out of the run's collections (gc.freeze), which would otherwise walk them
    # all again and again (and once more at the interpreter's exit, unless a caller in
    # the same process goes on: then they are given back to the collector at the end).
    enabled = gc.isenabled()
    gc.disable()
    try:
        from veriplan.verify.batch import (
            JSON_ESCAPE,
            MAX_WORKERS,
            batch_lines,
            json_text,
            read_lines,
            worker_cap,
        )
    finally:
        if enabled:
            gc.enable()

    clash = [o for o, v in (("--domain", args.domain), ("--problem", args.problem),
                            ("--plan", args.plan), ("--json", args.json),
                            ("--trace", args.trace),
                            ("--explain-reading", getattr(args, "explain_reading", False)),
                            ("--planbench-config",
                                                      args.planbench_config),
                            ("--format", args.format != "pddl")) if v]
    if clash:
        args.usage_error(f"--batch reads domain, problem, plan and format from each line: "
                         f"drop {', '.join(clash)}")
    if args.workers < 1:
        args.usage_error(f"--workers must be at least 1, not {args.workers}")
    window = getattr(args, "window", None)
    if window is not None and window < 1:
        args.usage_error(f"--window must be at least 1 line, not {window}")
    cap = worker_cap() if args.workers > 1 else 1
    if args.workers > cap:
        print(f"note: --workers {args.workers} is more than veriplan starts here; using {cap} "
              f"(four a CPU, at most {MAX_WORKERS}, within the open-file limit)",
              file=sys.stderr)
        args.workers = cap
    if args.base_dir is not None and not os.path.isdir(args.base_dir):
        raise VeriplanError(f"--base-dir {args.base_dir} is not a directory")
    if args.batch == "-":
        stream, total = sys.stdin, None
        _set_errors(stream, "replace")  # bytes that are not UTF-8 cannot hide a line
    else:
        stream = _open_batch(args.batch)
        total = None
        if window is None and args.workers == 1 and _regular(stream):
            # a file's lines are all there: its files are looked at once a window (a
            # pipe's lines may name files written as they come: each looked at anew)
            from veriplan.verify.batch import FILE_WINDOW

            window = FILE_WINDOW
    counts = {True: 0, False: 0, None: 0}
    out = sys.stdout
    restore: str | None = None
    gc.freeze()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PDDLLenientWarning)
            lines = read_lines(stream, args.max_bytes) if hasattr(stream, "readline") else stream
            records = batch_lines(lines, base_dir=args.base_dir, strict=not args.lenient,
                                  workers=args.workers, window=window,
                                  confine=args.confine, max_bytes=args.max_bytes,
                                  **_tolerance_of(args))
            if sys.stderr.isatty():
                if stream is not sys.stdin and os.path.isfile(args.batch):
                    with open(args.batch, "rb") as f:
                        total = sum(1 for _ in f)
                records = _progress(records, total)
            # From a file to a file or pipe, records go out 256 at a time (one write
            # each, even when the stream is unbuffered, as with PYTHONUNBUFFERED);
            # from standard input or to a terminal, each as it is judged.
            chunk = 1 if stream is sys.stdin or out.isatty() else 256
            # A character the output cannot encode (a lone surrogate that came in as
            # "\ud800") goes out as a JSON escape, so every record stays JSON.
            restore = _set_errors(out, JSON_ESCAPE)
            encoding = getattr(out, "encoding", None)

            def write(lines: list[str]) -> None:
                lines.append("")
                text = "\n".join(lines)
                try:
                    out.write(text)
                except UnicodeEncodeError:
                    out.write(json_text(text, encoding))

            pending: list[str] = []
            try:
                for valid, text in records:
                    counts[valid] += 1
                    pending.append(text)
                    if len(pending) >= chunk:
                        write(pending)
                        pending = []
            finally:  # what was judged is written, also when the run stops early
                if pending:
                    write(pending)
            out.flush()
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        quiet_stdout()
        return EXIT_UNJUDGED
    finally:
        if not PROCESS_ENDS:
            gc.unfreeze()
        if stream is not sys.stdin:
            stream.close()
        if restore is not None:
            try:
                _set_errors(out, restore)
            except BrokenPipeError:
                quiet_stdout()
    for message in dict.fromkeys(str(w.message) for w in caught
                                 if issubclass(w.category, PDDLLenientWarning)):
        warnings.warn(message, PDDLLenientWarning, stacklevel=1)
    if counts[None]:
        return EXIT_UNJUDGED
    return EXIT_FAIL if counts[False] else EXIT_OK


def _set_errors(stream, errors: str | None) -> str | None:
    """Set a text stream's encoding error handler; the one it had (None if it
    cannot be set)."""
    old = getattr(stream, "errors", None)
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None or errors is None:
        return None
    try:
        reconfigure(errors=errors)
    except (ValueError, OSError, TypeError, AttributeError):
        return None
    return old


def _regular(stream) -> bool:
    """Whether a text stream reads a regular file (not a pipe, socket or terminal)."""
    import stat

    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, AttributeError, ValueError):
        return False


def _open_batch(path: str):
    """The batch file as a text stream: a regular file or a pipe (``<(...)``); a
    directory or device (``/dev/zero`` never ends) is refused."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise VeriplanError(f"cannot read batch file {path}: {exc.strerror}") from None
    except ValueError:
        raise VeriplanError(f"cannot read batch file {path!r}: the path holds a NUL byte") \
            from None
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        os.close(fd)
        kind = "a directory" if stat.S_ISDIR(mode) else "a device or socket"
        raise VeriplanError(f"cannot read batch file {path}: it is {kind}, not a file")
    os.set_blocking(fd, True)
    return open(fd, encoding="utf-8", errors="replace")  # noqa: SIM115


def quiet_stdout() -> None:
    """After the reader of standard output went away (``| head``): send what is
    left to /dev/null, so that neither this command nor the interpreter's exit
    writes there again (which would raise BrokenPipeError once more)."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass


def _progress(records, total: int | None):
    """``records`` passed through, with a rich progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    columns = [TextColumn("validate"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[bad]} not valid, {task.fields[unjudged]} not judged")]
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("validate", total=total, bad=0, unjudged=0)
        bad = unjudged = n = 0
        for n, (valid, text) in enumerate(records, 1):  # noqa: B007
            bad += valid is False
            unjudged += valid is None
            if n % 64 == 0:
                bar.update(task, completed=n, bad=bad, unjudged=unjudged)
            yield valid, text
        bar.update(task, completed=n if total is None else total, bad=bad, unjudged=unjudged)


def _solve_classical(args: argparse.Namespace) -> int:

    from veriplan.core.arguments import ARGUMENTS
    from veriplan.planners.classical import solve_classical

    # the contract's range (veriplan.core.arguments), as the MCP tool checks it
    ARGUMENTS["time_limit"].number(args.time_limit, "--time-limit", "solve-classical")
    task = load_task_args(args)
    result = solve_classical(task, args.planner, time_limit=args.time_limit)
    if args.json:
        from veriplan.cli.jsondoc import emit

        emit("solve_classical_cli", result.to_dict())
    else:
        if result.plan is not None:
            for step in result.plan:
                print(step)
        verdict = ("verified by veriplan's validator on your domain and problem"
                   if result.solved else
                   result.validation.feedback() if result.validation else "no plan")
        print(f"; planner {result.planner}: {result.status} in {result.seconds:.2f}s; "
              f"{verdict}")
    return EXIT_OK if result.solved else EXIT_FAIL


def _obfuscate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from veriplan.cli.jsondoc import emit
    from veriplan.pddl.obfuscation import Renaming, obfuscate
    from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl

    task = load_task_args(args)
    renaming = None
    if args.mapping:
        try:
            renaming = Renaming.from_dict(json.loads(read_text(args.mapping, "mapping file")))
        except json.JSONDecodeError as exc:
            raise VeriplanError(f"mapping file {args.mapping} is not JSON: {exc}") from None
    new, renaming = obfuscate(task, seed=args.seed, renaming=renaming)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "domain.pddl").write_text(domain_to_pddl(new.domain))
    (out / "problem.pddl").write_text(problem_to_pddl(new.problem))
    (out / "renaming.json").write_text(json.dumps(renaming.to_dict(), indent=2) + "\n")
    if args.json:
        emit("obfuscate", {"domain": out / "domain.pddl", "problem": out / "problem.pddl",
                           "renaming_file": out / "renaming.json", "seed": args.seed,
                           "renaming": renaming.to_dict()})
        return EXIT_OK
    print(f"wrote {out / 'domain.pddl'}, {out / 'problem.pddl'} and {out / 'renaming.json'}")
    return EXIT_OK


def _prompt(args: argparse.Namespace) -> int:
    from veriplan.cli.jsondoc import emit
    from veriplan.pddl.task import Task
    from veriplan.planio import PlanBenchConfig, parse_plan, render_prompt
    from veriplan.search import bfs

    task = load_task_args(args)
    cfg = PlanBenchConfig.from_yaml(args.planbench_config)
    example = None
    if args.example_problem:
        from veriplan.pddl.parser import read_problem

        ex = Task(task.domain, read_problem(args.example_problem, task.domain,
                                            strict=not args.lenient))
        if args.example_plan:
            plan = parse_plan(read_text(args.example_plan, "plan file"), ex).raise_for_errors(
                args.example_plan).steps
        else:
            r = bfs(ex)
            if r.plan is None:
                raise VeriplanError("the example problem has no plan; give --example-plan")
            plan = r.plan
        example = (ex, plan)
    text = render_prompt(task, cfg, example=example)
    if args.json:
        emit("prompt", {"prompt": text, "example_problem": args.example_problem,
                        "example_plan": [str(s) for s in example[1]] if example else None})
    else:
        print(text)
    return EXIT_OK


COMMANDS = {"validate": _validate, "solve-classical": _solve_classical,
            "obfuscate": _obfuscate, "prompt": _prompt}
