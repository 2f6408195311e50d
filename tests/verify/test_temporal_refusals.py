"""A temporal task (durative actions, timed initial literals) refused where only
instantaneous actions are handled (grounding for search, solve-classical, the PDDL
methods, obfuscation) says it is temporal and what to do: a TemporalTaskError (a
NumericTaskError, which callers already catch), never "has numeric fluents"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from veriplan import cli
from veriplan.errors import NumericTaskError, TemporalTaskError, UnsupportedRequirementError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task

SPEC = yaml.safe_load((Path(__file__).parent / "temporal_features.yaml").read_text())
NO_TILS = SPEC["problem"].replace("(at 20 (not (open z)))", "")


def _task(problem: str = SPEC["problem"]) -> Task:
    domain = parse_domain(SPEC["domain"])
    return Task(domain, parse_problem(problem, domain))


def _says_temporal(message: str) -> None:
    assert "is temporal (durative actions" in message, message
    assert "numeric fluents" not in message
    assert "temporal planner" in message and "validate" in message


@pytest.mark.parametrize("problem", [SPEC["problem"], NO_TILS], ids=["tils", "no-tils"])
def test_grounding_a_temporal_task_says_it_is_temporal(problem):
    task = _task(problem)
    with pytest.raises(TemporalTaskError) as exc:
        task.ground()
    _says_temporal(str(exc.value))
    assert isinstance(exc.value, NumericTaskError)
    assert ("timed initial literals" in str(exc.value)) == (problem is SPEC["problem"])
    with pytest.raises(TemporalTaskError):
        _ = task.goal


def test_solve_classical_on_a_temporal_task(tmp_path, capsys):
    dom, prob = tmp_path / "d.pddl", tmp_path / "p.pddl"
    dom.write_text(SPEC["domain"])
    prob.write_text(SPEC["problem"])
    assert cli.main(["solve-classical", str(dom), str(prob), "--planner", "bfs"]) == 2
    _says_temporal(capsys.readouterr().err)
    assert cli.main(["solve-classical", str(dom), str(prob), "--planner", "bfs",
                     "--json"]) == 2
    _says_temporal(json.loads(capsys.readouterr().out)["error"]["message"])


def test_a_pddl_method_refuses_a_temporal_task():
    from veriplan.methods import PlanningProblem
    from veriplan.methods.result import as_problem

    task = _task()
    for make in (lambda: PlanningProblem(task), lambda: as_problem(task)):
        with pytest.raises(TemporalTaskError) as exc:
            make()
        _says_temporal(str(exc.value))
        assert "PDDL method" in str(exc.value)


def test_obfuscation_refuses_durative_actions_by_name():
    from veriplan.pddl.obfuscation import obfuscate

    task = _task()
    with pytest.raises(UnsupportedRequirementError) as exc:
        obfuscate(task, seed=0)
    assert "durative actions" in str(exc.value) and "numeric fluents" not in str(exc.value)
    assert exc.value.requirement == ":durative-actions"


def test_a_numeric_task_is_still_told_it_has_numeric_fluents():
    from veriplan.pddl.task import load_task

    root = Path(__file__).resolve().parents[2] / "src" / "veriplan" / "examples"
    task = load_task(root / "tanks-domain.pddl", root / "tanks-problem.pddl")
    with pytest.raises(NumericTaskError) as exc:
        task.ground()
    assert not isinstance(exc.value, TemporalTaskError)
    assert "has numeric fluents" in str(exc.value)
