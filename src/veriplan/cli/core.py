"""Core commands: validate, solve-classical, obfuscate, prompt."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from veriplan.errors import VeriplanError

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3


def load_task_args(args: argparse.Namespace):
    from veriplan.pddl.task import load_task

    return load_task(args.domain, args.problem, strict=not args.lenient)


def read_text(path: str, what: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise VeriplanError(f"cannot read {what} {path}: {exc.strerror}") from None


EXIT_UNJUDGED = 4  # validate --batch: some lines could not be judged


def _validate(args: argparse.Namespace) -> int:
    from veriplan.planio import parse_plan
    from veriplan.verify import validate_plan

    if args.batch is not None:
        return _validate_batch(args)
    given = [o for o, v in (("--workers", args.workers != 1), ("--base-dir", args.base_dir))
             if v]
    if given:
        args.usage_error(f"{' and '.join(given)} go with --batch FILE.jsonl only")
    missing = [o for o, v in (("--domain", args.domain), ("--problem", args.problem),
                              ("--plan", args.plan)) if not v]
    if missing:
        args.usage_error(f"validate needs {', '.join(missing)} (or --batch FILE.jsonl to "
                         "judge many plans)")
    if args.format == "planbench" and not args.planbench_config:
        raise VeriplanError("--format planbench needs --planbench-config "
                            "(e.g. configs/blocksworld.yaml of PlanBench)")
    task = load_task_args(args)
    parsed = parse_plan(read_text(args.plan, "plan file"), task, format=args.format,
                        config=args.planbench_config)
    result = validate_plan(task, parsed, trace=args.trace)  # unread lines: not valid
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        for u in result.unread:
            print(f"unread: {u}")
        print(("valid: " if result.valid else "not valid: ") + result.feedback())
        if args.trace and result.trace is not None:
            for i, state in enumerate(result.trace):
                print(f"state {i}: {' '.join(state)}")
    return EXIT_OK if result.valid else EXIT_FAIL


def _validate_batch(args: argparse.Namespace) -> int:
    """validate --batch: one JSON record per input line on stdout, in order."""
    import warnings

    from veriplan.errors import PDDLLenientWarning
    from veriplan.verify.batch import batch_lines

    clash = [o for o, v in (("--domain", args.domain), ("--problem", args.problem),
                            ("--plan", args.plan), ("--json", args.json),
                            ("--trace", args.trace), ("--planbench-config",
                                                      args.planbench_config),
                            ("--format", args.format != "pddl")) if v]
    if clash:
        args.usage_error(f"--batch reads domain, problem, plan and format from each line: "
                         f"drop {', '.join(clash)}")
    if args.workers < 1:
        args.usage_error(f"--workers must be at least 1, not {args.workers}")
    if args.batch == "-":
        stream, total = sys.stdin, None
    else:
        try:
            stream = open(args.batch, encoding="utf-8", errors="replace")  # noqa: SIM115
        except OSError as exc:
            raise VeriplanError(f"cannot read batch file {args.batch}: {exc.strerror}") from None
        total = None
    counts = {True: 0, False: 0, None: 0}
    out = sys.stdout
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PDDLLenientWarning)
            records = batch_lines(stream, base_dir=args.base_dir, strict=not args.lenient,
                                  workers=args.workers)
            if sys.stderr.isatty():
                if stream is not sys.stdin:
                    with open(args.batch, "rb") as f:
                        total = sum(1 for _ in f)
                records = _progress(records, total)
            # From a file to a file or pipe, records go out 256 at a time (one write
            # each, even when the stream is unbuffered, as with PYTHONUNBUFFERED);
            # from standard input or to a terminal, each as it is judged.
            chunk = 1 if stream is sys.stdin or out.isatty() else 256
            pending: list[str] = []
            try:
                for valid, text in records:
                    counts[valid] += 1
                    pending.append(text)
                    if len(pending) >= chunk:
                        pending.append("")
                        out.write("\n".join(pending))
                        pending = []
            finally:  # what was judged is written, also when the run stops early
                if pending:
                    pending.append("")
                    out.write("\n".join(pending))
            out.flush()
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
        return EXIT_UNJUDGED
    finally:
        if stream is not sys.stdin:
            stream.close()
    for message in dict.fromkeys(str(w.message) for w in caught
                                 if issubclass(w.category, PDDLLenientWarning)):
        warnings.warn(message, PDDLLenientWarning, stacklevel=1)
    if counts[None]:
        return EXIT_UNJUDGED
    return EXIT_FAIL if counts[False] else EXIT_OK


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
    from veriplan.planners.classical import solve_classical

    task = load_task_args(args)
    result = solve_classical(task, args.planner, time_limit=args.time_limit)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
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
    print(f"wrote {out / 'domain.pddl'}, {out / 'problem.pddl'} and {out / 'renaming.json'}")
    return EXIT_OK


def _prompt(args: argparse.Namespace) -> int:
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
    print(render_prompt(task, cfg, example=example))
    return EXIT_OK


COMMANDS = {"validate": _validate, "solve-classical": _solve_classical,
            "obfuscate": _obfuscate, "prompt": _prompt}
