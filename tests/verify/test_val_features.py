"""PDDL features, judged by veriplan and VAL: a small domain for each feature VAL
accepts and veriplan claims (tests/verify/features/*.yaml), valid and invalid plans
with the verdict written beside each; and for each feature veriplan does not
support (features/unsupported.yaml), a typed error naming the construct and its
line, never a verdict, while VAL judges the same plan."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from veriplan.cli import main
from veriplan.errors import UnsupportedRequirementError
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task
from veriplan.planio import parse_plan
from veriplan.verify import StepErrorKind, validate_plan
from veriplan.verify.val import ValOutcome, disagreement

FEATURES = Path(__file__).parent / "features"
SUPPORTED = [(f.stem, yaml.safe_load(f.read_text()))
             for f in sorted(FEATURES.glob("*.yaml")) if f.stem != "unsupported"]
UNSUPPORTED = yaml.safe_load((FEATURES / "unsupported.yaml").read_text())


def _expect(r, expect) -> None:
    if expect == "valid":
        assert r.valid, r.feedback()
    elif expect == "goal":
        assert not r.valid and r.failed_step is None and r.unmet_goals, r.feedback()
    else:
        assert not r.valid and r.failed_step == expect["step"], r.feedback()


def test_every_claimed_feature_has_a_domain():
    names = " ".join(spec["feature"] for _, spec in SUPPORTED)
    for feature in (":typing", ":negative-preconditions", ":equality",
                    ":conditional-effects", ":quantified-preconditions",
                    ":disjunctive-preconditions", "constants", ":action-costs",
                    ":numeric-fluents", ":derived-predicates", "either", "happening"):
        assert feature in names, feature


@pytest.mark.parametrize("name,spec", SUPPORTED, ids=[n for n, _ in SUPPORTED])
def test_feature_judged_alike(name, spec, val, tmp_path):
    domain = parse_domain(spec["domain"], file=f"{name}.yaml")
    task = Task(domain, parse_problem(spec["problem"], domain))
    dom, prob = tmp_path / "domain.pddl", tmp_path / "problem.pddl"
    dom.write_text(spec["domain"])
    prob.write_text(spec["problem"])
    plans = spec["plans"]
    verdicts = val.judge_many(dom, prob, ["\n".join(p["plan"]) + "\n" for p in plans])
    kinds = set()
    for p, theirs in zip(plans, verdicts):
        ours = validate_plan(task, parse_plan("\n".join(p["plan"]), task))
        _expect(ours, p["expect"])
        assert theirs.judged or theirs.outcome is ValOutcome.BAD_PLAN, (p, theirs)
        assert disagreement(ours, theirs) is None, (p["plan"], theirs, ours)
        if theirs.outcome is ValOutcome.PRECONDITION:
            assert theirs.failed_step == p["expect"]["step"]
        if "cost" in p:
            assert ours.cost == p["cost"] == theirs.value
        if "metric" in p:
            assert ours.metric is not None and ours.metric.value == p["metric"] == theirs.value
        if p.get("mutex"):
            assert ours.error is StepErrorKind.MUTEX and "interfere" in ours.detail, ours
        kinds.add("valid" if ours.valid else "goal" if ours.failed_step is None else "step")
    assert kinds == {"valid", "goal", "step"}  # each feature: valid and both kinds of invalid


@pytest.mark.parametrize("spec", UNSUPPORTED, ids=[s["construct"] for s in UNSUPPORTED])
def test_unsupported_feature_is_an_error_naming_it(spec, val, tmp_path):
    dom, prob, plan = tmp_path / "domain.pddl", tmp_path / "problem.pddl", tmp_path / "plan"
    dom.write_text(spec["domain"])
    prob.write_text(spec["problem"])
    plan.write_text("\n".join(spec["plan"]) + "\n")
    with pytest.raises(UnsupportedRequirementError) as info:
        d = parse_domain(spec["domain"], file=str(dom))
        parse_problem(spec["problem"], d, file=str(prob))
    err = info.value
    assert err.line == spec["line"] and err.file == str(dom if spec["where"] == "domain"
                                                        else prob)
    assert spec["says"] in str(err) and err.requirement == spec["requirement"]
    # VAL reads and judges it: this is veriplan's subset, not a broken file.
    assert val.judge(dom, prob, plan.read_text()).outcome == spec["val"]


def test_unsupported_feature_on_the_command_line_is_no_verdict(tmp_path, capsys):
    spec = next(s for s in UNSUPPORTED if s["construct"] == "continuous effects")
    dom, prob, plan = tmp_path / "domain.pddl", tmp_path / "problem.pddl", tmp_path / "plan"
    dom.write_text(spec["domain"])
    prob.write_text(spec["problem"])
    plan.write_text("(drive t x y)\n")
    code = main(["validate", "--domain", str(dom), "--problem", str(prob), "--plan", str(plan)])
    out = capsys.readouterr()
    assert code not in (0, 1)  # 0 and 1 are verdicts
    assert f"{dom}:{spec['line']}" in out.err + out.out
    assert spec["says"] in out.err + out.out
