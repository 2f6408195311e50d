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


def _validate(args: argparse.Namespace) -> int:
    from veriplan.planio import parse_plan
    from veriplan.verify import validate_plan

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
        verdict = ("verified by veriplan's validator" if result.solved else
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
