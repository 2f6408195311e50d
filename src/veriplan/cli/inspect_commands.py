"""``veriplan export-inspect RUNS_DIR --out LOGDIR``: a run store written as
inspect-ai eval logs (one per arm, one sample per unit), for ``inspect view``."""

from __future__ import annotations

import argparse

from veriplan.cli.core import EXIT_OK
from veriplan.cli.jsondoc import emit


def add_parsers(sub, commands: dict) -> None:
    """Add the command to ``sub`` and its handler to ``commands``."""
    e = sub.add_parser("export-inspect", help="write a run store as inspect-ai eval logs "
                                              "(browse them with `inspect view`)")
    e.add_argument("runs_dir", help="the run store's directory (veriplan bench --out)")
    e.add_argument("--out", required=True, help="directory for the .eval logs (made if missing)")
    e.add_argument("--json", action="store_true", help="print the logs written as JSON")
    commands["export-inspect"] = _export


def _export(args: argparse.Namespace) -> int:
    from veriplan.inspect.export import export_runs  # needs the [inspect] extra: a clear error

    paths = export_runs(args.runs_dir, args.out)
    if args.json:
        emit("export_inspect", {"out": args.out, "logs": paths})
        return EXIT_OK
    for p in paths:
        print(p)
    print(f"{len(paths)} eval log(s) in {args.out}; browse them with: "
          f"inspect view --log-dir {args.out}")
    return EXIT_OK
