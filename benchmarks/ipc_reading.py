"""What veriplan reads of the IPC subset (../shared/data/ipc-dev), beside VAL's parser.

Every variant, its first two instances: VAL's ``Parser`` (errors 0: read), then
veriplan's ``load_task`` strict and lenient. A variant counts as read when both
instances are. Printed: the counts, and each variant where the two differ.

    python benchmarks/ipc_reading.py [--data-dir ../shared/data]
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from collections import Counter

import common

LATER = (":durative-action", ":timed-initial-literals", ":preferences", ":constraints")


def main() -> int:
    args = common.parser(__doc__).parse_args()
    from veriplan.errors import VeriplanError
    from veriplan.pddl.task import load_task
    from veriplan.verify.val import find_val

    val = find_val()
    parser = val.validate.parent / "Parser"
    root = args.data_dir / "ipc-dev"
    rows = []
    for variant in sorted(root.glob("*/*")):
        got = {"val": True, "strict": True, "lenient": True}
        later = False
        for inst in sorted((variant / "instances").glob("*.pddl"))[:2]:
            dom = variant / "domain.pddl"
            if not dom.exists():
                dom = variant / "domains" / f"domain-{inst.name.split('-', 1)[1]}"
            later = later or any(k in dom.read_text().lower() for k in LATER)
            out = subprocess.run([str(parser), str(dom), str(inst)], capture_output=True,
                                 text=True, env=val.env, timeout=60).stdout
            m = re.search(r"Errors: (\d+), warnings: \d+", out)
            got["val"] &= m is not None and m.group(1) == "0"
            for mode in ("strict", "lenient"):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        load_task(dom, inst, strict=mode == "strict")
                    except VeriplanError:
                        got[mode] = False
        rows.append((f"{variant.parent.name}/{variant.name}", later, got))
    c = Counter()
    for _name, later, got in rows:
        part = "temporal or PDDL 3" if later else "sequential"
        c[(part, "variants")] += 1
        for k, v in got.items():
            c[(part, k)] += v
    for part in ("sequential", "temporal or PDDL 3"):
        print(f"{part}: {c[(part, 'variants')]} variants; VAL's parser reads "
              f"{c[(part, 'val')]}; veriplan reads {c[(part, 'strict')]} (strict), "
              f"{c[(part, 'lenient')]} (lenient)")
    for name, later, got in rows:
        if not later and got["val"] != got["strict"]:
            print(f"  {name}: VAL {'reads' if got['val'] else 'refuses'}, veriplan "
                  f"{'reads' if got['strict'] else 'refuses'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
