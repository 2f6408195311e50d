"""The hand-checked careful reading of 100 reasoning models' answers
(benchmarks/data/planbench_reading_reference.jsonl, issue 34): no answer is read
as a valid plan it does not state, and the readings agree with the reference at
least as often as when the reference was measured (98/100)."""

from __future__ import annotations

import json
from pathlib import Path

from veriplan.pddl.task import load_task
from veriplan.planio import PlanBenchConfig, parse_plan
from veriplan.verify import validate_plan

REFERENCE = (Path(__file__).resolve().parents[2] / "benchmarks" / "data"
             / "planbench_reading_reference.jsonl")


def test_readings_against_the_careful_reading(planbench):
    refs = {}
    for line in REFERENCE.read_text(encoding="utf-8").splitlines():
        ref = json.loads(line)
        refs[ref["id"]] = ref
    rows = [json.loads(line) for line in
            (planbench / "answers-dev.jsonl").read_text(encoding="utf-8").splitlines()]
    same, unsound = 0, []
    cfgs: dict[str, PlanBenchConfig] = {}
    for row in rows:
        ref = refs.get(row["id"])
        if ref is None:
            continue
        cfg = cfgs.get(row["config"])
        if cfg is None:
            cfg = cfgs[row["config"]] = PlanBenchConfig.from_yaml(planbench / row["config"])
        task = load_task(planbench / row["domain_file"], planbench / row["problem"])
        parsed = parse_plan(row["raw"], task, format="planbench", config=cfg)
        mine = [str(s) for s in parsed.steps] if parsed.ok else None
        if mine == ref["plan"]:
            same += 1
        elif mine is not None and validate_plan(task, parsed).valid:
            unsound.append(row["id"])
    assert unsound == []
    assert same >= 98, same
