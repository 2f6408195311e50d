"""The JSON the command line prints conforms to its versioned schema in
docs/schemas: ``validate --json``, each ``validate --batch`` line and
``solve-classical --json`` (run in process through veriplan.cli.main)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tests.mcp.conftest import EXAMPLES, SCHEMAS
from veriplan.cli import main

D, P = str(EXAMPLES / "blocks-domain.pddl"), str(EXAMPLES / "blocks-problem.pddl")


def _validator(name: str) -> Draft202012Validator:
    registry = Registry()
    for f in SCHEMAS.glob("*.json"):
        doc = json.loads(f.read_text())
        registry = registry.with_resource(doc["$id"], Resource.from_contents(doc))
    schema = json.loads((SCHEMAS / f"{name}.v1.json").read_text())
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, registry=registry)


@pytest.mark.parametrize("plan, trace", [("blocks-plan.txt", True), ("blocks-bad-plan.txt", False),
                                         ("blocks-plan-planbench.txt", False)])
def test_validate_json(capsys: pytest.CaptureFixture[str], plan: str, trace: bool) -> None:
    main(["validate", "--domain", D, "--problem", P, "--plan", str(EXAMPLES / plan), "--json",
          *(["--trace"] if trace else [])])
    _validator("validate").validate(json.loads(capsys.readouterr().out))


def test_validate_batch_lines(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = str(EXAMPLES / "blocks-plan.txt")
    lines = [{"id": "good", "domain": D, "problem": P, "plan_file": good},
             {"id": 2, "domain": D, "problem": P, "plan": "(pick-up b)\nfly"},
             {"id": "gone", "domain": D, "problem": str(tmp_path / "missing.pddl"), "plan": ""}]
    batch = tmp_path / "b.jsonl"
    batch.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    main(["validate", "--batch", str(batch)])
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(out) == 4
    v = _validator("validate_batch_record")
    for record in out:
        v.validate(record)


@pytest.mark.parametrize("problem", ["blocks-problem.pddl", "blocks6-problem.pddl"])
def test_solve_classical_json(capsys: pytest.CaptureFixture[str], problem: str) -> None:
    main(["solve-classical", D, str(EXAMPLES / problem), "--planner", "bfs", "--json"])
    doc = json.loads(capsys.readouterr().out)
    _validator("solve_classical_cli").validate(doc)
    assert doc["solved"]
