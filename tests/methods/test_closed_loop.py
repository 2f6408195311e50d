"""The closed-loop pipeline on scripted models: every repair strategy, the
stop rule, the ablations, the fallback, and symbol-agnosticism."""

from __future__ import annotations

import pytest

from tests.conftest import EXAMPLES
from tests.methods.structural_model import StructuralModel
from veriplan.errors import ConfigError
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.closed_loop import Config, solve
from veriplan.methods.closed_loop.sc import comprehend, render
from veriplan.pddl.obfuscation import obfuscate
from veriplan.pddl.task import load_task

TASK = load_task(EXAMPLES / "blocks-domain.pddl", EXAMPLES / "blocks-problem.pddl")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()


def run(answers, **cfg):
    backend = ScriptedBackend(answers)
    result = solve(TASK, LLM(backend), Config(**cfg))
    return result, backend


def strategies(result) -> list:
    return [t.data["strategy"] for t in result.transcript]


def test_constraints_come_from_structure():
    c = comprehend(TASK)
    text = render(c)
    assert "stack (?b - object ?below - object): needs (holding ?b), (clear ?below)" in text
    assert c.first_actions == ("(pick-up b)", "(unstack c a)")
    assert "(on a b)" in c.landmarks and "(on b c)" in c.landmarks
    assert ("handempty", "holding") in c.mutexes
    shallow = render(comprehend(TASK, deep=False))
    assert "needs" not in shallow and "takes 2 argument(s)" in shallow


@pytest.mark.parametrize(("first", "strategy", "words"), [
    ("(stack a b)", "first_step_constraint", "The first step must be one of: (pick-up b), "
                                             "(unstack c a)"),
    ("(unstack c a)\n(pick-up b)", "precondition_probing", "needs (handempty)"),
    ("(unstack c a)\n(put-down c)\n(pick-up b)\n(stack c b)", "parameter_swap_landmarks",
     "(stack b c) can"),
    ("(unstack c a)\n(put-down c)", "parameter_swap_landmarks", "leaves (on a b), (on b c) "
                                                               "false"),
    ("I would move the blocks.", "translation_repair", "using only these forms"),
])
def test_each_repair_strategy(first, strategy, words):
    result, backend = run([first, GOOD])
    assert result.verified and result.attempts == 2 and result.solved_by == "llm"
    assert strategies(result) == [None, strategy]
    assert words in result.transcript[0].verdict
    second_prompt = backend.requests[1].messages[-1].content
    assert "Repair instructions" in second_prompt and words in second_prompt
    assert "Your previous plan" in second_prompt


def test_symbol_translation_by_signature(planbench):
    from veriplan.methods.closed_loop.contracts import TextPlan
    from veriplan.methods.closed_loop.st import translate

    # "lift b": no such action, and two actions take one object: unmapped, reported.
    plan = translate(TextPlan("(lift b)\n(unstack c a)", 1), TASK)
    assert [str(s) for s in plan.steps] == ["(unstack c a)"]
    assert plan.unmapped[0].line == 1 and "not an action" in plan.unmapped[0].reason
    # Logistics: only fly-airplane takes three objects? No: drive/load/unload take 3-4.
    # A domain where one action has a unique signature maps by structure:
    base = planbench / "instances/logistics"
    task = load_task(base / "generated_domain.pddl",
                     sorted((base / "generated_basic").glob("*.pddl"))[0])
    four = [n for n, s in task.schemas.items() if len(s.params) == 4]
    assert four == ["drive-truck"]
    truck = next(o for o in task.objects if o.startswith("t"))
    locs = [o for o in task.objects if o.startswith("l")][:2]
    city = next(o for o in task.objects if o.startswith("c"))
    plan = translate(TextPlan(f"move {truck} {locs[0]} {locs[1]} {city}", 1), task)
    assert [s.name for s in plan.steps] == ["drive-truck"] and plan.by_structure == (1,)


def test_stop_rule_samples_once_then_stops():
    result, backend = run(["(stack a b)"] * 5, max_attempts=5)
    assert not result.verified and result.attempts == 3
    assert strategies(result) == [None, "first_step_constraint", "budget_adaptive_retry"]
    assert [r.temperature for r in backend.requests] == [0.0, 0.0, 0.7]
    assert "no marginal gain" in result.transcript[-1].data["stopped"]


def test_ablations():
    result, backend = run(["(stack a b)", "(stack a b)", GOOD], ablation="random_regeneration")
    assert result.verified and result.attempts == 3
    assert all("Your previous plan" not in r.messages[-1].content for r in backend.requests)
    assert [r.sample_index for r in backend.requests] == [0, 1, 2]
    result, backend = run(["(stack a b)", GOOD], ablation="final_validation_only")
    assert strategies(result) == [None, "binary_feedback"]
    assert "The previous plan was not valid." in backend.requests[1].messages[-1].content
    result, backend = run([GOOD], ablation="shallow_constraints")
    assert "needs (holding" not in backend.requests[0].messages[-1].content
    with pytest.raises(ConfigError):
        run([GOOD], ablation="nonsense")


def test_fallback_is_reported_as_fallback():
    result, _ = run(["(stack a b)"] * 3, fallback="bfs")
    assert result.verified and result.solved_by == "fallback:bfs" and len(result.plan) == 6
    result, _ = run(["(stack a b)"] * 3)
    assert not result.verified and result.solved_by is None and result.plan == []


def test_signals_have_the_common_keys():
    result, _ = run(["(unstack c a)\n(pick-up b)", GOOD])
    s = result.signals[0]
    assert s.failed_step == 2 and s.action == "pick-up" and s.missing == ["handempty"]
    assert s.failure == ["precondition"] and result.signals[1].verified


def _outcome(result):
    return (result.verified, result.attempts,
            [(t.data["strategy"], s.failed_step, tuple(s.failure), len(t.plan))
             for t, s in zip(result.transcript, result.signals, strict=True)])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_outcomes_on_a_renamed_domain(planbench, seed):
    base = planbench / "instances/blocksworld/mystery"
    task = load_task(base / "generated_domain.pddl", base / "generated_basic_3/instance-7.pddl")
    renamed, _ = obfuscate(task, seed=seed)
    a = solve(task, LLM(ScriptedBackend(fn=StructuralModel())))
    b = solve(renamed, LLM(ScriptedBackend(fn=StructuralModel())))
    assert _outcome(a) == _outcome(b)
    assert a.verified and a.attempts == 3
    assert [t.data["strategy"] for t in a.transcript] == [None, "first_step_constraint",
                                                      "precondition_probing"]
    assert [t.plan for t in b.transcript] != [t.plan for t in a.transcript]
