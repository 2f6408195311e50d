"""Commands of the benchmark harness: bench, report, trace."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path

from veriplan.cli.core import EXIT_FAIL, EXIT_OK
from veriplan.cli.jsondoc import emit
from veriplan.cli.llm_commands import method_options
from veriplan.errors import ConfigError


def add_parsers(sub) -> None:
    from veriplan.bench.datasets import DATASETS
    from veriplan.bench.runner import STOP_AFTER_SAME_ERRORS
    from veriplan.llm.registry import DEFAULT_BACKEND, available
    from veriplan.methods import available_methods

    b = sub.add_parser("bench", help="run a method over a dataset (or a sweep) into a "
                                     "resumable run store")
    b.add_argument("method", nargs="?", help=f"one of {', '.join(available_methods())}")
    b.add_argument("--dataset", action="append", help=f"one of {', '.join(sorted(DATASETS))} "
                                                     "(repeatable)")
    b.add_argument("--matrix", help="a sweep file (TOML): methods x datasets x models x seeds "
                                    "x configs; or METHOD:NAME, one of a method's sweeps "
                                    "(e.g. aec:aec_controlled)")
    b.add_argument("--data-dir", help="folder holding planbench/ (default: VERIPLAN_DATA)")
    b.add_argument("--recipes", metavar="PATH", help="SQ-BCP tasks from your RecipeNLG-format "
                   "CSV (dataset sqbcp_recipes@FILE-STEM, in place of sqbcp_recipes)")
    b.add_argument("--wikihow", metavar="PATH", help="SQ-BCP tasks from your WikiHow file "
                   "(JSON lines or the wikiHow CSV; dataset sqbcp_howto@FILE-STEM)")
    b.add_argument("--out", default="veriplan-runs", help="experiment directory (default "
                                                         "veriplan-runs); re-running resumes")
    b.add_argument("--backend", default=DEFAULT_BACKEND, choices=sorted(available()))
    b.add_argument("--model")
    b.add_argument("--model-path")
    b.add_argument("--base-url")
    b.add_argument("--cassette")
    b.add_argument("--script", help="'module:function' answering requests (scripted backend)")
    b.add_argument("--limit", type=int, help="first N instances of each dataset")
    b.add_argument("--seeds", type=int, nargs="+", default=[0])
    b.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a method setting (repeatable)")
    b.add_argument("--ablation", help="closed-loop: random_regeneration, "
                                      "final_validation_only or shallow_constraints "
                                      "(same as --config ablation=...)")
    b.add_argument("--fallback", choices=["none", "bfs", "planner"],
                   help="closed-loop: search when the model fails; reported as fallback")
    b.add_argument("--actuator", choices=["symbolic", "llm"],
                   help="drip: who judges executability (the PDDL model or the LLM)")
    b.add_argument("--workers", type=int, default=1, help="units in parallel")
    b.add_argument("--executor", choices=["local", "ray"], default="local")
    b.add_argument("--unit-timeout", type=float, help="seconds before a unit is recorded as "
                                                      "a timeout")
    b.add_argument("--rerun-errors", action="store_true", help="run units that ended in an "
                                                               "error again")
    b.add_argument("--rerun-stale", action="store_true", help="run again the stored units "
                   "whose dataset has changed since they ran (their records are replaced)")
    b.add_argument("--stop-after", type=int, default=STOP_AFTER_SAME_ERRORS, metavar="N",
                   help="stop the run when its first N units all end in the same error "
                        "(a server that is not running, a wrong model name); 0: never "
                        f"(default {STOP_AFTER_SAME_ERRORS})")
    b.add_argument("--no-cache", action="store_true")
    b.add_argument("--cache-path")
    b.add_argument("--json", action="store_true", help="print the run's counts as JSON at "
                                                       "the end (the progress bar on stderr)")

    r = sub.add_parser("report", help="Markdown, HTML and plots from an experiment directory")
    r.add_argument("directory")
    r.add_argument("--compare", nargs=2, metavar=("A", "B"), action="append",
                   help="significance of A against B, each 'method' or "
                        "'method:key=value,...' (the unit's settings exactly); repeatable")
    r.add_argument("--json", action="store_true",
                   help="print the files written and the report's data (report.json) as JSON")

    t = sub.add_parser("trace", help="print one unit's transcript")
    t.add_argument("result_id", help="the unit id (a unique prefix is enough)")
    t.add_argument("--dir", default="veriplan-runs", help="experiment directory")
    t.add_argument("--json", action="store_true", help="print the unit's record as JSON")


def _plan(args: argparse.Namespace):
    from veriplan.bench.runner import find_sweep
    from veriplan.bench.units import BackendSpec, SweepPlan, load_matrix

    if args.matrix:
        return load_matrix(find_sweep(args.matrix))
    datasets = list(args.dataset or [])
    for flag, base, factory in (("recipes", "sqbcp_recipes", "recipes_dataset"),
                                ("wikihow", "sqbcp_howto", "howto_dataset")):
        path = getattr(args, flag, None)
        if path:
            datasets = _own_file(datasets, path, base, factory)
    args.dataset = datasets
    if not args.method or not args.dataset:
        raise ConfigError("give a METHOD and --dataset, or --matrix sweep.toml")
    config = method_options(args)
    spec = BackendSpec.of(args.backend, args.model, model_path=args.model_path,
                          base_url=args.base_url, cassette=args.cassette, script=args.script)
    return SweepPlan([args.method], list(args.dataset), [spec], [config], list(args.seeds),
                     args.limit)


def _own_file(datasets: list[str], path: str, base: str, factory: str) -> list[str]:
    """Register a user's task file as ``base@stem`` and use it in place of ``base``."""
    from pathlib import Path

    from veriplan.bench.datasets import register_dataset
    from veriplan.domains.hidden import datasets as hidden

    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(f"--{'recipes' if 'recipes' in base else 'wikihow'} {path}: no such "
                          "file")
    name = f"{base}@{file.stem}"
    make = getattr(hidden, factory)
    register_dataset(name, lambda root: make(file, name=name))
    return [name if d == base else d for d in datasets] if base in datasets \
        else datasets + [name]


class _Screen:
    """A bench run's progress on standard error: a live bar on a terminal, else
    a line when the run starts, after its first unit and its last, and at most
    every ``every`` seconds between; the first error's reason as it happens."""

    def __init__(self, every: float = 10.0) -> None:
        import sys
        import time

        from rich.console import Console

        self._clock = time.perf_counter
        self._every, self._last = every, float("-inf")
        self._console = Console(stderr=True)
        self._plain = not self._console.is_terminal
        self._stream = sys.stderr
        self._bar = None
        self._task = None
        self._told_error = False

    def __enter__(self) -> _Screen:
        if not self._plain:
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                 TextColumn("{task.completed}/{task.total}"),
                                 TimeRemainingColumn(), TextColumn("{task.fields[stats]}"),
                                 console=self._console)
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)

    def _say(self, line: str) -> None:
        if self._bar is not None:
            self._bar.console.print(line, markup=False, highlight=False)
        else:
            print(line, file=self._stream, flush=True)

    def start(self, p) -> None:
        if self._bar is not None:
            self._task = self._bar.add_task("units", total=p.total, stats="")
        else:
            self._say(f"bench: {p.total} unit(s) to run, {p.skipped} already in the store")

    def done(self, rec, p) -> None:
        cost = p.known_cost
        stats = (f"{p.verified_words()}, not verified {p.failed}, errors {p.errors}, "
                 f"tokens {p.tokens:,}, " + ("cost unknown" if cost is None
                                             else f"cost ${cost:.4f}"))
        if p.first_error is not None and not self._told_error:
            self._told_error = True
            category, reason = p.first_error
            self._say(f"bench: first error, unit {rec.id} ({category}): {reason}")
        if self._bar is not None:
            self._bar.update(self._task, completed=p.done, stats=stats)
            return
        now = self._clock()
        if p.done in (1, p.total) or now - self._last >= self._every:
            self._last = now
            self._say(f"bench: {p.done}/{p.total} units done: {stats}")


def _bench(args: argparse.Namespace) -> int:
    from veriplan.bench.runner import run_sweep
    from veriplan.llm import default_cache_path

    plan = _plan(args)
    cache = None if args.no_cache else Path(args.cache_path or default_cache_path())
    with _Screen() as screen:
        progress = run_sweep(plan, args.out, data_root=args.data_dir, workers=args.workers,
                             executor=args.executor, cache_path=cache,
                             unit_timeout=args.unit_timeout, rerun_errors=args.rerun_errors,
                             rerun_stale=args.rerun_stale, stop_after=args.stop_after,
                             on_start=screen.start, on_done=screen.done)
    if args.json:
        # "cost" only when every unit run now has a known cost (docs/json.md): an
        # unpriced run has no cost, and 0.0 would read as a free one
        cost = progress.known_cost
        emit("bench", {
            "store": Path(args.out) / "runs.sqlite", "total": progress.total,
            "done": progress.done, "skipped": progress.skipped,
            "verified_by_scope": [{"scope": scope, "units": n}
                                  for scope, n in sorted(progress.by_scope.items())],
            "failed": progress.failed, "errors": progress.errors,
            "tokens": progress.tokens, **({} if cost is None else {"cost": cost})})
        return EXIT_OK if progress.errors == 0 else EXIT_FAIL
    print(f"{progress.done} unit(s) run, {progress.skipped} already in the store; "
          f"{progress.verified_words()}, not verified {progress.failed}, errors {progress.errors}; "
          f"store {Path(args.out) / 'runs.sqlite'}")
    return EXIT_OK if progress.errors == 0 else EXIT_FAIL


def _report(args: argparse.Namespace) -> int:
    from veriplan.bench.report import write_report

    paths = write_report(args.directory,
                         compare_arms=[tuple(c) for c in args.compare or []])
    if args.json:
        emit("report", {"directory": args.directory, "files": paths,
                        "report": json.loads(paths["json"].read_text())})
        return EXIT_OK
    print(paths["markdown"].read_text())
    print("wrote " + ", ".join(str(p) for p in paths.values()))
    return EXIT_OK


def _trace(args: argparse.Namespace) -> int:
    from veriplan.bench.store import RunStore
    from veriplan.cli.render import transcript_lines

    rec = RunStore(args.dir, create=False).get(args.result_id)
    if args.json:
        emit("trace", {**asdict(rec), "config": json.loads(rec.config),
                       "result": rec.result_dict()})
        return EXIT_OK
    print(f"unit {rec.id}: {rec.method} on {rec.dataset}/{rec.instance}, {rec.backend}:"
          f"{rec.model}, seed {rec.seed}, config {rec.config}")
    on = f" ({rec.scope.describes})" if rec.scope is not None and rec.verified else ""
    print(f"status {rec.status}; verified {rec.verified}{on}; solved by {rec.solved_by}; "
          f"{rec.llm_calls} call(s), {rec.tokens} tokens, {rec.seconds:.2f}s")
    if rec.error:
        print(f"\nerror ({rec.error_category}):\n{rec.error}")
    result = rec.result_dict()
    for line in transcript_lines(result.get("transcript", [])):
        print(line)
    if result.get("plan"):
        print("\nplan:\n" + "\n".join(result["plan"]))
    if not result and not rec.error:
        print(json.dumps(result))
    return EXIT_OK


COMMANDS = {"bench": _bench, "report": _report, "trace": _trace}
