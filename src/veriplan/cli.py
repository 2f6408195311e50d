"""The ``veriplan`` command line: the only place that prints and exits."""

from __future__ import annotations

import argparse
import json
import sys
import traceback
import warnings
from pathlib import Path

from veriplan import __version__
from veriplan.errors import PDDLLenientWarning, VeriplanError

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_BUG = 0, 1, 2, 3


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


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="veriplan",
        description="Planning with LLMs, where nothing counts as solved until a sound "
                    "verifier has checked it.")
    ap.add_argument("--version", action="version", version=f"veriplan {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    v = sub.add_parser("validate", help="check a plan against a PDDL task")
    _task_args(v, positional=False)
    v.add_argument("--plan", required=True, help="plan file ('-' for standard input)")
    v.add_argument("--format", choices=["pddl", "planbench"], default="pddl",
                   help="plan format: (action args) lines, or PlanBench natural language")
    v.add_argument("--planbench-config", help="PlanBench YAML config (for --format planbench)")
    v.add_argument("--json", action="store_true", help="print the ValidationResult as JSON")
    v.add_argument("--trace", action="store_true", help="include the state trace")

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

    r = sub.add_parser("prompt", help="render a task as a PlanBench plan-generation prompt")
    _task_args(r, positional=True)
    r.add_argument("--planbench-config", required=True, help="PlanBench YAML config")
    r.add_argument("--example-problem", help="problem file of the one-shot example")
    r.add_argument("--example-plan", help="plan of the one-shot example "
                                          "(default: solved by our BFS)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PDDLLenientWarning)
            code = _COMMANDS[args.command](args)
        for w in caught:
            if issubclass(w.category, PDDLLenientWarning):
                print(f"warning: {w.message}", file=sys.stderr)
        return code
    except VeriplanError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception:  # a crash of veriplan is always a bug: say so, with the traceback
        traceback.print_exc()
        print("internal error: this is a bug in veriplan; please report it with the "
              "traceback above", file=sys.stderr)
        return EXIT_BUG


def _load(args: argparse.Namespace):
    from veriplan.pddl.task import load_task

    return load_task(args.domain, args.problem, strict=not args.lenient)


def _read_text(path: str, what: str) -> str:
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
    task = _load(args)
    parsed = parse_plan(_read_text(args.plan, "plan file"), task, format=args.format,
                        config=args.planbench_config)
    result = validate_plan(task, parsed, trace=args.trace)
    valid = result.valid and parsed.ok
    if args.json:
        out = result.to_dict()
        out["valid"] = valid
        out["unread_lines"] = [{"line": u.line, "text": u.text, "reason": u.reason}
                               for u in parsed.unread]
        print(json.dumps(out, indent=2))
    else:
        for u in parsed.unread:
            print(f"unread: {u}")
        if parsed.unread and result.valid:
            print(f"not valid: {len(parsed.unread)} line(s) of the plan could not be read; "
                  f"the {len(parsed.steps)} steps read {result.feedback()[len('the plan '):]}")
        else:
            print(("valid: " if valid else "not valid: ") + result.feedback())
        if args.trace and result.trace is not None:
            for i, state in enumerate(result.trace):
                print(f"state {i}: {' '.join(state)}")
    return EXIT_OK if valid else EXIT_FAIL


def _solve_classical(args: argparse.Namespace) -> int:
    from veriplan.planners.classical import solve_classical

    task = _load(args)
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

    task = _load(args)
    renaming = None
    if args.mapping:
        try:
            renaming = Renaming.from_dict(json.loads(_read_text(args.mapping, "mapping file")))
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

    task = _load(args)
    cfg = PlanBenchConfig.from_yaml(args.planbench_config)
    example = None
    if args.example_problem:
        from veriplan.pddl.parser import read_problem

        ex = Task(task.domain, read_problem(args.example_problem, task.domain,
                                            strict=not args.lenient))
        if args.example_plan:
            plan = parse_plan(_read_text(args.example_plan, "plan file"), ex).raise_for_errors(
                args.example_plan).steps
        else:
            r = bfs(ex)
            if r.plan is None:
                raise VeriplanError("the example problem has no plan; give --example-plan")
            plan = r.plan
        example = (ex, plan)
    print(render_prompt(task, cfg, example=example))
    return EXIT_OK


_COMMANDS = {"validate": _validate, "solve-classical": _solve_classical,
             "obfuscate": _obfuscate, "prompt": _prompt}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
