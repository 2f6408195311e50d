"""Validation speed: veriplan against unified-planning's sequential plan
validator, in one run over PlanBench's 1000 recorded GPT-4 plans.

veriplan is timed on two paths, each reading every plan's problem file:

- the benchmark path: the domain parsed once by the script, then per plan
  ``Task(domain, read_problem(...))`` + ``parse_plan`` + ``validate_plan``;
- the public path, the calls a user makes once per plan:
  ``load_task(domain, problem)`` + ``parse_plan`` + ``validate_plan``
  (``load_task`` finds the parsed domain in its cache while the file is unchanged).

unified-planning's reader parses a domain and a problem together, so its
per-plan time is reported twice: the whole pipeline (domain re-read each
time, as its API requires) and validation alone on pre-parsed problems.
The three run in interleaved rounds of 50 plans.

    python benchmarks/validate_speed.py [--data-dir ../shared/data] [--limit N]
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import common
from veriplan.pddl.parser import read_domain, read_problem
from veriplan.pddl.task import Task, load_task
from veriplan.planio import parse_plan
from veriplan.verify import validate_plan

ROUND = 50  # plans per interleaved round

SETS = [
    ("blocksworld__gpt-4_chat__one_shot.json", "blocksworld/generated_domain.pddl",
     "blocksworld/generated_basic", "correct"),
    ("mystery_blocksworld__gpt-4_chat__one_shot.json",
     "blocksworld/mystery/generated_domain.pddl", "blocksworld/mystery/generated_basic",
     "llm_correct"),
]


def load_cases(pb: Path, limit: int | None):
    cases = []
    for resp, dom, probs, key in SETS:
        data = json.loads((pb / "responses" / resp).read_text())
        for rec in data["instances"]:
            plan = rec["extracted_llm_plan"]
            plan = "\n".join(plan) if isinstance(plan, list) else plan
            prob = pb / "instances" / probs / f"instance-{rec['instance_id']}.pddl"
            cases.append((pb / "instances" / dom, prob, prob.read_text(), plan,
                          str(rec[key]) == "True"))
    return cases[:limit] if limit else cases


def time_veriplan(cases, domains: dict) -> tuple[float, int]:
    """Seconds for ``cases`` on the benchmark path (``domains``: parsed once)."""
    agree = 0
    start = time.perf_counter()
    for dom, prob, _text, plan, expected in cases:
        d = domains.get(dom)
        if d is None:
            d = domains[dom] = read_domain(dom)
        task = Task(d, read_problem(prob, d))  # read from disk, as the peer does
        agree += validate_plan(task, parse_plan(plan, task)).valid == expected
    return time.perf_counter() - start, agree


def time_public(cases) -> tuple[float, int]:
    """Seconds for ``cases`` on the public path."""
    agree = 0
    start = time.perf_counter()
    for dom, prob, _text, plan, expected in cases:
        task = load_task(dom, prob)
        agree += validate_plan(task, parse_plan(plan, task)).valid == expected
    return time.perf_counter() - start, agree


class UnifiedPlanning:
    def __init__(self) -> None:
        from unified_planning.engines import SequentialPlanValidator
        from unified_planning.io import PDDLReader
        from unified_planning.shortcuts import get_environment

        get_environment().credits_stream = None
        self.validator = SequentialPlanValidator()
        self.reader = PDDLReader()

    def time(self, cases) -> tuple[float, float, int]:
        """Seconds for ``cases``: the whole pipeline, validation alone, agreements."""
        agree = 0
        validate_only = 0.0
        start = time.perf_counter()
        for dom, prob, _text, plan, expected in cases:
            problem = self.reader.parse_problem(str(dom), str(prob))
            t0 = time.perf_counter()
            up_plan = self.reader.parse_plan_string(problem, plan)
            ok = self.validator.validate(problem, up_plan).status.name == "VALID"
            validate_only += time.perf_counter() - t0
            agree += ok == expected
        return time.perf_counter() - start, validate_only, agree


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    pb = Path(args.data_dir) / "planbench"
    if not pb.is_dir():
        print(f"no PlanBench data at {pb}: pass --data-dir", file=sys.stderr)
        return 2
    cases = load_cases(pb, args.limit)
    warnings.simplefilter("ignore")
    domains: dict = {}
    time_veriplan(cases[:50], domains)  # warm up imports and caches
    time_public(cases[:50])
    up = UnifiedPlanning()
    # Interleaved rounds of ROUND plans, so that both tools see the same load
    # on a shared machine (a 0.1 s run of ours would otherwise meet whatever
    # load one moment of unified-planning's minute did not).
    ours = public = up_total = up_validate = 0.0
    ours_agree = public_agree = up_agree = 0
    for i in range(0, len(cases), ROUND):
        part = cases[i:i + ROUND]
        t, a = time_veriplan(part, domains)
        ours, ours_agree = ours + t, ours_agree + a
        t, a = time_public(part)
        public, public_agree = public + t, public_agree + a
        t, v, a = up.time(part)
        up_total, up_validate, up_agree = up_total + t, up_validate + v, up_agree + a
    ours, public, up_total, up_validate = (x / len(cases)
                                           for x in (ours, public, up_total, up_validate))
    n = len(cases)
    print(f"plans: {n}")
    print(f"veriplan          : {ours * 1e3:8.3f} ms/plan (benchmark path: parse problem + "
          f"ground + validate), verdicts agree with PlanBench {ours_agree}/{n}")
    print(f"veriplan          : {public * 1e3:8.3f} ms/plan (public path: load_task + "
          f"parse_plan + validate_plan), verdicts agree with PlanBench {public_agree}/{n}")
    print(f"unified-planning  : {up_total * 1e3:8.3f} ms/plan (parse + validate), "
          f"verdicts agree {up_agree}/{n}")
    print(f"unified-planning  : {up_validate * 1e3:8.3f} ms/plan (validate only, pre-parsed)")
    print(f"ratio (UP pipeline / veriplan benchmark path): {up_total / ours:8.1f}x")
    print(f"ratio (UP pipeline / veriplan public path)   : {up_total / public:8.1f}x  "
          "(target >= 500x)")
    print(f"ratio (UP validate only / veriplan benchmark path): {up_validate / ours:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
