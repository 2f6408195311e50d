"""``veriplan paper``: a paper's claims beside what veriplan measures of them.

``veriplan paper NAME`` runs the paper's headline protocol (its defaults and
data sizes, or ``--quick``, a stated subset) into a resumable store (the
harness's runner, as ``bench``), then prints every claim with the paper's
number beside ours and a verdict. ``--no-run`` reads stores only; ``--all``
without ``--backend`` reads every paper's committed stores under ``--results``
(``docs/claims.md`` is ``veriplan paper --all --markdown``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from veriplan.cli.core import EXIT_OK
from veriplan.cli.jsondoc import emit
from veriplan.errors import ConfigError

DEFAULT_STORE = "veriplan-papers"


def add_parsers(sub) -> None:
    from veriplan.llm.registry import available
    from veriplan.papers import paper_names

    names = paper_names()
    p = sub.add_parser(
        "paper", help="a paper's claims, the paper's numbers beside ours, a verdict each",
        description="Run a paper's headline protocol and print its claims with the paper's "
                    "numbers beside the measured ones (95%% intervals, model-solved and "
                    "fallback-solved apart) and a verdict per claim.")
    p.add_argument("name", nargs="?", help=f"one of {', '.join(names)}")
    p.add_argument("--list", action="store_true",
                   help="list each paper's claims (the named one, or all), measuring nothing")
    p.add_argument("--all", action="store_true",
                   help="every paper; without --backend, read their committed stores under "
                        "--results (no run)")
    p.add_argument("--quick", action="store_true",
                   help="the paper's stated quick subset instead of its full sizes")
    p.add_argument("--limit", type=int, metavar="N",
                   help="the first N instances of each dataset (a smaller run of the protocol; "
                        "the row's command says so)")
    p.add_argument("--no-run", action="store_true",
                   help="read the stores only: --store if given, else the paper's committed "
                        "stores under --results")
    p.add_argument("--store", help=f"the run store's directory (default {DEFAULT_STORE}/NAME; "
                                   "with --all, DIR/NAME a paper); re-running resumes")
    p.add_argument("--results", default="results",
                   help="the directory holding the committed stores (default results)")
    p.add_argument("--backend", choices=sorted({"controlled", *available()}),
                   help="the model's backend (default llamacpp, the embedded model); "
                        "'controlled' is the paper's own controlled test model")
    p.add_argument("--model", action="append", default=[],
                   help="the model (repeatable: several give the backbone tables)")
    p.add_argument("--model-path")
    p.add_argument("--base-url")
    p.add_argument("--data-dir", help="folder holding planbench/ (default: VERIPLAN_DATA)")
    p.add_argument("--workers", type=int, default=1, help="units in parallel")
    p.add_argument("--unit-timeout", type=float)
    p.add_argument("--rerun-errors", action="store_true")
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--cache-path")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--markdown", action="store_true", help="print Markdown")
    out.add_argument("--json", action="store_true", help="print one JSON document")


def _backends(args: argparse.Namespace):
    from veriplan.bench.units import BackendSpec
    from veriplan.llm.registry import DEFAULT_BACKEND

    name = args.backend or DEFAULT_BACKEND
    models = args.model or [None]
    return tuple(BackendSpec.of(name, m, model_path=args.model_path, base_url=args.base_url)
                 for m in models)


def _list(names: list[str]) -> int:
    from veriplan.papers import PaperNotAvailableError, get_paper
    from veriplan.papers.render import claims_text

    for name in names:
        try:
            paper = get_paper(name)
        except PaperNotAvailableError as exc:
            print(f"{name}: not yet available ({exc.target} is not there)\n")
            continue
        print(claims_text(paper.name, paper.title, paper.quick, paper.claims()))
    return EXIT_OK


def _list_json(names: list[str]) -> int:
    from veriplan.papers import PaperNotAvailableError, get_paper
    from veriplan.papers.claims import PaperReport
    from veriplan.papers.protocol import unavailable_report
    from veriplan.papers.render import report_doc

    docs = []
    for name in names:
        try:
            paper = get_paper(name)
        except PaperNotAvailableError as exc:
            docs.append(report_doc(unavailable_report(name, str(exc))))
            continue
        docs.append(report_doc(PaperReport(paper.name, paper.title, paper.quick,
                                           claims=tuple(paper.claims()))))
    emit("paper", {"papers": docs})
    return EXIT_OK


def _paper(args: argparse.Namespace) -> int:
    from veriplan.papers import PaperNotAvailableError, get_paper, paper_names
    from veriplan.papers.protocol import (
        RunRequest,
        backends_for,
        make_report,
        unavailable_report,
    )
    from veriplan.papers.render import CLAIMS_HEADING, report_doc, to_markdown, to_text

    if args.all and args.name:
        raise ConfigError("give a paper's NAME or --all, not both")
    names = paper_names() if args.all or (args.list and not args.name) else [args.name]
    if names == [None]:
        raise ConfigError(f"give a paper: one of {', '.join(paper_names())} (or --all, "
                          "--list)")
    for name in names:
        if name not in paper_names():
            raise ConfigError(f"unknown paper {name!r}: use one of {', '.join(paper_names())}")
    if args.list:
        return _list_json(names) if args.json else _list(names)
    run = not args.no_run and not (args.all and args.backend is None)
    results_dir = Path(args.results)
    reports = []
    for name in names:
        try:
            paper = get_paper(name)
        except PaperNotAvailableError as exc:
            if len(names) == 1:
                raise
            reports.append(unavailable_report(
                name, f"Not yet available: `{exc.target}` is not there yet."))
            continue
        if run:
            store = Path(args.store) / name if args.store and args.all else \
                Path(args.store or Path(DEFAULT_STORE) / name)
            cache = None if args.no_cache else Path(args.cache_path) if args.cache_path \
                else _default_cache()
            request = RunRequest(backends_for(paper, _backends(args)), quick=args.quick,
                                 limit=args.limit,
                                 data_root=Path(args.data_dir) if args.data_dir else None,
                                 workers=args.workers, cache_path=cache,
                                 unit_timeout=args.unit_timeout,
                                 rerun_errors=args.rerun_errors)
            summary = paper.run(request, store)
            print(f"paper {name}: {summary.done} unit(s) run, {summary.skipped} already in "
                  f"{store}; {summary.errors} error(s)", file=sys.stderr)
            reports.append(make_report(paper, [store]))
        elif args.store:
            store = Path(args.store) / name if args.all else Path(args.store)
            reports.append(make_report(paper, [store]))
        else:
            stores = [results_dir / d for d in paper.committed]
            reports.append(make_report(paper, stores, shown=[
                f"{results_dir.name}/{d}" for d in paper.committed]))
    if args.json:
        emit("paper", {"papers": [report_doc(r) for r in reports]})
    elif args.markdown:
        heading = CLAIMS_HEADING if args.all and not run and not args.store else ""
        print(to_markdown(reports, heading=heading), end="")
    else:
        print(to_text(reports), end="")
    return EXIT_OK


def _default_cache() -> Path:
    from veriplan.llm import default_cache_path

    return Path(default_cache_path())


COMMANDS = {"paper": _paper}
