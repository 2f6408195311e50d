"""``veriplan autotos reference|run``: the AutoToS loop and its reference check.
Their text goes through the writer the command line gives
(:mod:`veriplan.cli.output`)."""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from veriplan.cli.core import EXIT_FAIL, EXIT_OK
from veriplan.cli.jsondoc import emit
from veriplan.cli.llm_commands import add_llm_options, build_llm, method_options
from veriplan.cli.output import Writer, stdout
from veriplan.core.verdict import Scope
from veriplan.errors import ConfigError

# the method `veriplan autotos run` runs (search domains)
AUTOTOS_METHOD = "autotos"


def runs(method: str) -> list[list[str]]:
    """The commands of this module that run ``method`` (the hint of ``veriplan solve``)."""
    return [["autotos", "run", "--domain", "DOMAIN"]] if method == AUTOTOS_METHOD else []


def add_parsers(sub) -> None:
    from veriplan.domains.autotos import DOMAINS

    a = sub.add_parser("autotos", help="AutoToS: LLM-written successor functions and goal "
                                       "tests, checked, then searched")
    asub = a.add_subparsers(dest="autotos_command", required=True)
    ref = asub.add_parser("reference", help="run the hand-written components through the "
                                            "same harness and checks")
    ref.add_argument("--domain", default="all", help=f"one of {', '.join(DOMAINS)}, or all")
    ref.add_argument("--data-dir", help="folder holding autotos/ (default: VERIPLAN_DATA)")
    ref.add_argument("--limit", type=int, default=0, metavar="N",
                     help="the first N evaluation instances of each domain (default: all)")
    ref.add_argument("--json", action="store_true", help="print the counts per domain as JSON")
    run = asub.add_parser("run", help="the full loop with a model, repeated")
    run.add_argument("--domain", required=True, help=f"one of {', '.join(DOMAINS)}, or all")
    run.add_argument("--data-dir", help="folder holding autotos/ (default: VERIPLAN_DATA)")
    run.add_argument("--repeats", type=int, default=5,
                     help="runs per domain (seeds 0..N-1; the paper's 5 by default)")
    run.add_argument("--out", default="autotos-runs", help="folder for one JSON record a run")
    run.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                     help="a setting of veriplan.methods.autotos.Config (repeatable)")
    run.add_argument("--json", action="store_true", help="print the runs and the tables as "
                                                        "JSON at the end (progress on stderr)")
    add_llm_options(run)


def _domains(name: str) -> list[str]:
    from veriplan.domains.autotos import DOMAINS, get_domain

    if name == "all":
        return list(DOMAINS)
    get_domain(name)  # a clear error for an unknown name
    return [name]


def _reference(args: argparse.Namespace, out: Writer) -> int:
    from veriplan.bench.datasets import data_dir
    from veriplan.domains.autotos import get_domain
    from veriplan.methods.autotos import Config, reference

    if args.limit < 0:
        raise ConfigError(f"--limit {args.limit}: give a number of instances, 0 or more "
                          "(0: all)")
    root = data_dir(args.data_dir)
    ok = True
    rows = []
    for name in _domains(args.domain):
        domain = get_domain(name)
        start = time.perf_counter()
        data = domain.load(root)
        r = reference(domain, data, Config(eval_limit=args.limit))
        seconds = time.perf_counter() - start
        good = r["optimal"] if domain.optimal else r["valid"]
        ok &= good == r["instances"]
        rows.append({"domain": name, "algorithm": domain.algorithm, "instances": r["instances"],
                     "solved": good, "valid": r["valid"],
                     "optimal": r["optimal"] if domain.optimal else None,
                     "categories": r["categories"], "seconds": seconds})
        if args.json:
            continue
        extra = f", optimal {r['optimal']}" if domain.optimal else ""
        problems = f"; {r['categories']}" if r["categories"] else ""
        out(f"{name}: {good}/{r['instances']} solved and validated{extra} "
            f"({domain.algorithm}); {seconds:.2f} s{problems}")
    if args.json:
        emit("autotos_reference", {"ok": bool(ok), "domains": rows})
    return EXIT_OK if ok else EXIT_FAIL


def _run(args: argparse.Namespace, out: Writer) -> int:
    from veriplan.bench.datasets import data_dir
    from veriplan.domains.autotos import get_domain
    from veriplan.methods import get_method
    from veriplan.methods.autotos.method import record_dict, run_loop
    from veriplan.sandbox.secrets import scrub

    root = data_dir(args.data_dir)
    config = get_method(AUTOTOS_METHOD).make_config(method_options(args))
    llm = build_llm(args)
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    runs = []
    for name in _domains(args.domain):
        domain = get_domain(name)
        data = domain.load(root)
        for seed in range(args.repeats):
            rec = run_loop(domain, data, llm.session(), replace(config, seed=seed),
                           observer=_progress(name, seed, out))
            path = folder / f"{name}-{llm.name}-{llm.model}-seed{seed}.json".replace("/", "_")
            body = {"domain": name, "backend": llm.name, "model": llm.model, "seed": seed,
                    "config": vars(config) | {"seed": seed}, **record_dict(rec)}
            path.write_text(json.dumps(scrub(body), indent=2))
            acc = {k: v.get("accuracy") for k, v in rec.accuracy.items()}
            runs.append({"domain": name, "seed": seed, "status": rec.status,
                         "calls": rec.calls, "categories": rec.categories,
                         "feedback": rec.feedback, "accuracy": acc, "seconds": rec.seconds,
                         "record": path})
            out(f"{name} seed {seed}: {rec.status}, calls {rec.calls}, errors "
                f"{rec.categories or 'none'}, feedback calls {rec.feedback}, accuracy "
                f"{acc}, {rec.seconds:.1f}s -> {path}")
    if args.json:
        emit("autotos_run", {"out": folder, "backend": llm.name, "model": llm.model,
                             "scope": Scope.SEARCH_COMPONENTS, "runs": runs,
                             "table": table(folder)})
        return EXIT_OK
    out()
    out(table(folder))
    return EXIT_OK


def _progress(name: str, seed: int, out: Writer):
    def show(event) -> None:
        if event.kind in ("failure", "accuracy"):
            out(f"  {name}/{seed}: {event.text[:120]}")
    return show


def table(folder: Path) -> str:
    """The paper's Table 1 and Figures 2-4 as tables, over the run records in
    ``folder`` (every record there, not only this invocation's)."""
    from veriplan.methods.autotos.figures import RunSummary, markdown

    runs = []
    for f in sorted(folder.glob("*.json")):
        rec = json.loads(f.read_text())
        if isinstance(rec, dict) and "calls" in rec and "domain" in rec:
            runs.append(RunSummary.from_record(rec))
    return markdown(runs) if runs else "no AutoToS run records in " + str(folder)


def _autotos(args: argparse.Namespace, out: Writer = stdout) -> int:
    """The ``autotos`` sub-command ``args`` names, its text through ``out`` (the
    command line's standard output unless another writer is given)."""
    return (_reference if args.autotos_command == "reference" else _run)(args, out)


COMMANDS = {"autotos": _autotos}
