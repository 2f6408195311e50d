"""veriplan's verdicts on the planner-made numeric and derived-predicate plans and
their mutants (tests/data/ipc_plans: 756 plans on 77 IPC problems) against the
verdicts VAL gave them (val_verdicts.jsonl, recorded by
benchmarks/ipc_plans/val_verdicts.py): the same verdict on every plan and the same
metric value on every valid one, but where VAL's settled error explains the
difference. Reads the recorded verdicts, so VAL need not run; about 4 s for 77
problems."""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from pathlib import Path

from tests.conftest import REPO
from veriplan.pddl.task import load_task
from veriplan.planio import parse_plan
from veriplan.verify import validate_plan
from veriplan.verify.val import ValOutcome, ValVerdict, known_val_error

VERDICTS = Path(__file__).resolve().parents[1] / "data" / "ipc_plans" / "val_verdicts.jsonl"


def test_every_verdict_and_metric_is_vals_but_its_settled_errors(data_dir):
    rows = [json.loads(line) for line in VERDICTS.read_text().splitlines() if line.strip()]
    assert len(rows) >= 700
    by_problem: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        by_problem[(row["domain"], row["problem"])].append(row)
    agree = metrics = 0
    settled: list[str] = []
    for (dom, prob), group in by_problem.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            task = load_task(data_dir / "ipc-dev" / dom, data_dir / "ipc-dev" / prob,
                             strict=False)
        for row in group:
            ours = validate_plan(task, parse_plan((REPO / row["plan"]).read_text(), task))
            val_ok = row["verdict"] == "valid"
            if ours.valid == val_ok:
                agree += 1
                if val_ok and row.get("final_value") is not None and task.problem.metric:
                    assert ours.metric is not None, row["plan"]
                    assert abs(ours.metric.value - row["final_value"]) <= 1e-6 * max(
                        1.0, abs(row["final_value"])), (row["plan"], ours.metric)
                    metrics += 1
                continue
            outcome = ValOutcome.VALID if val_ok else ValOutcome(row["outcome"])
            theirs = ValVerdict(outcome, None if val_ok else 10 ** 6)
            why = known_val_error(ours, theirs)
            assert why is not None, (row["plan"], row["verdict"], ours.feedback())
            settled.append(why)
    assert agree >= len(rows) - 5 and metrics >= 60
    assert set(settled) <= {"strict-comparison", "undefined-increase", "division-by-zero"}
