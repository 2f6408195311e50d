"""``veriplan import``: published runs into a run store, every answer re-judged."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from veriplan.cli.core import EXIT_OK
from veriplan.cli.jsondoc import emit


def add_parsers(sub) -> None:
    p = sub.add_parser("import", help="load published results into a run store, every answer "
                                      "re-read and re-validated by veriplan")
    kinds = p.add_subparsers(dest="import_kind", required=True)
    pb = kinds.add_parser("planbench", help="a PlanBench response file (results JSON)")
    pb.add_argument("file", help="PlanBench response file, e.g. "
                                 "planbench/responses/blocksworld__gpt-4_chat__one_shot.json")
    mp = kinds.add_parser("mystery-planning", help="a run folder of the closed-loop authors "
                                                   "(Mystery_Planning: instances/*.json)")
    mp.add_argument("run_dir", help="the run folder, e.g. "
                                    "results/runs/mystery_blocksworld_gpt-4_500")
    for q in (pb, mp):
        q.add_argument("--out", required=True, help="experiment directory (run store); "
                                                    "importing again adds nothing twice")
        q.add_argument("--data-dir", help="folder holding planbench/ (default: VERIPLAN_DATA)")
        q.add_argument("--dataset", help="the veriplan dataset the records are on (default: "
                                         "what the file says)")
        q.add_argument("--model", help="the model's name (default: what the file says)")
        q.add_argument("--skip-unknown", action="store_true",
                       help="leave out records of instances the dataset does not hold (they "
                            "are listed) instead of stopping")
        q.add_argument("--json", action="store_true", help="print what was imported and "
                                                          "the re-judged counts as JSON")


def _import(args: argparse.Namespace) -> int:
    kw = dict(data_dir=args.data_dir, dataset=args.dataset, model=args.model,
              skip_unknown=args.skip_unknown)
    if args.import_kind == "planbench":
        from veriplan.bench.imports_planbench import import_planbench

        s = import_planbench(args.file, args.out, **kw)
    else:
        from veriplan.bench.imports_mystery import import_mystery_planning

        s = import_mystery_planning(args.run_dir, args.out, **kw)
    if args.json:
        emit("import", {"kind": args.import_kind, **asdict(s)})
        return EXIT_OK
    print(f"{s.records} record(s) of {s.source}: {s.added} added, {s.already} already in "
          f"{s.store}")
    print(f"method {s.method}, model published:{s.model}, dataset {s.dataset}")
    if s.skipped_unknown:
        print(f"left out {len(s.skipped_unknown)} record(s) of instances not in {s.dataset}: "
              + ", ".join(s.skipped_unknown))
    reasons = ", ".join(f"{k} {v}" for k, v in s.overturns.items()) or "none"
    print(f"published solved {s.published_valid}, veriplan verified {s.veriplan_valid}, "
          f"agree {s.agree}, overturned {len(s.overturned)} ({reasons})")
    if any(k != "none" for k in s.published_solved_by) or s.solved_by:
        print("solved by (published): " + _counts(s.published_solved_by)
              + "; solved by (veriplan): " + _counts(s.solved_by))
    for o in s.overturned:
        print(f"  {o['instance']} ({o['reason']}): {o['detail']}")
    return EXIT_OK


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "none"


COMMANDS = {"import": _import}
