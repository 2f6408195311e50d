"""The closed-loop pipeline on scripted models: every repair strategy, CC as a
gate, SIM and VAL as separate stages, the stop rule, the ablations, NPMI
couplings, the search oracle kept off, the fallback, and symbol-agnosticism
(down to the prompts)."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import EXAMPLES
from tests.methods.structural_model import StructuralModel
from veriplan.errors import ConfigError
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.closed_loop import Config, solve
from veriplan.methods.closed_loop import sim as SIM
from veriplan.methods.closed_loop.sc import comprehend, render
from veriplan.pddl.obfuscation import obfuscate
from veriplan.pddl.task import load_task

TASK = load_task(EXAMPLES / "blocks-domain.pddl", EXAMPLES / "blocks-problem.pddl")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
# c sits on a; a and b on the table; goal (on a b), (on b c).
FAILS_AT_4 = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack c b)"  # (stack b c) would run


def run(answers, **cfg):
    backend = ScriptedBackend(answers)
    result = solve(TASK, LLM(backend), Config(**cfg))
    return result, backend


def strategies(result) -> list:
    return [t.data["strategy"] for t in result.transcript]


def prompts(backend) -> list[str]:
    return [r.messages[-1].content for r in backend.requests]


def test_constraints_come_from_structure():
    c = comprehend(TASK)
    text = render(c)
    assert "stack (?b - object ?below - object): needs (holding ?b), (clear ?below)" in text
    assert "stack needs (holding ...), which only pick-up, unstack adds" in text
    assert ("holding", "handempty") in c.mutexes
    # Landmarks beyond the goal: to put a on b the hand must hold a, and to pick a
    # up (c sits on it) a must first be clear.
    assert {"(on a b)", "(on b c)"} <= set(c.landmarks)
    assert "(holding a)" in c.landmarks and "(clear a)" in c.landmarks
    assert ("(holding a)", "(on a b)") in c.orderings
    assert ("(clear a)", "(holding a)") in c.orderings
    assert "(clear c)" not in c.landmarks  # true initially
    shallow = render(comprehend(TASK, deep=False))
    assert "needs" not in shallow and "takes 2 argument(s)" in shallow


def test_no_list_of_applicable_actions_unless_asked():
    """The ground actions applicable in a state are a partial search oracle the
    paper's C does not have: off by default, on with applicable_actions."""
    assert Config().applicable_actions is False
    assert comprehend(TASK).first_actions == ()
    for first in ("(stack a b)", "(unstack c a)\n(pick-up b)", "(unstack c a)\n(put-down c)"):
        _, backend = run([first, GOOD])
        for p in prompts(backend):
            assert "possible" not in p and "must be one of" not in p
    assert comprehend(TASK, applicable=True).first_actions == ("(pick-up b)", "(unstack c a)")
    result, backend = run(["(stack a b)", GOOD], applicable_actions=True)
    assert "The first step must be one of: (pick-up b), (unstack c a)" in prompts(backend)[1]
    assert "Actions possible in the initial state: (pick-up b), (unstack c a)" in \
        prompts(backend)[0]
    _, backend = run(["(unstack c a)\n(pick-up b)", GOOD], applicable_actions=True)
    after = "Actions possible after step 1: (put-down c), (stack c a), (stack c b)"
    assert after in prompts(backend)[1]


@pytest.mark.parametrize(("first", "strategy", "words"), [
    ("(stack a b)", "first_step_constraint",
     "(holding a) is false in the initial state; (holding a) is made true only by pick-up, "
     "unstack. The first step must be an action whose required predicates all hold in the "
     "initial state (of the actions, only pick-up, unstack can qualify)"),
    ("(unstack c a)\n(pick-up b)", "precondition_probing", "needs (handempty)"),
    (FAILS_AT_4, "precondition_probing", "Step 4 (stack c b) needs (clear b), (holding c)"),
    ("(unstack c a)\n(put-down c)", "parameter_swap_landmarks", "leaves (on a b), (on b c) "
                                                               "false"),
    ("I would move the blocks.", "translation_repair", "using only these forms"),
])
def test_each_repair_strategy(first, strategy, words):
    result, backend = run([first, GOOD])
    assert result.verified and result.attempts == 2 and result.solved_by == "llm"
    assert strategies(result) == [None, strategy]
    assert words in result.transcript[0].verdict
    second_prompt = prompts(backend)[1]
    assert "Repair instructions" in second_prompt and words in second_prompt
    assert "Your previous plan" in second_prompt


def test_cc_is_a_gate_and_rc_reads_its_diagnostics(monkeypatch):
    simulated = []
    real = SIM.simulate
    monkeypatch.setattr(SIM, "simulate", lambda plan, task: simulated.append(plan) or
                        real(plan, task))
    # Neither first step can run in the initial state: CC rejects both plans.
    result, _ = run(["(stack a b)", "(put-down a)\n(pick-up b)", GOOD], max_attempts=3)
    assert result.verified and len(simulated) == 1  # only the last plan passed CC
    first, second = result.signals[0], result.signals[1]
    assert first.data["stages"] == {"translate": True, "cc": False, "sim": None, "val": None}
    assert first.failed_step == 1 and first.missing == ["holding"]
    assert first.failure == ["precondition"] and second.data["stages"]["sim"] is None
    assert strategies(result) == [None, "first_step_constraint", "first_step_constraint"]
    # RC's directive is built from CC's report (the first step's false preconditions).
    assert result.transcript[1].verdict.startswith(
        "(put-down a) cannot be the first step: (holding a) is false in the initial state")


def test_sim_and_val_are_separate_stages():
    answers = ["(unstack c a)\n(pick-up b)",  # SIM rejects step 2
               "(unstack c a)\n(put-down c)",  # runs; VAL finds the goal unmet
               "(unstack c a)\n(put-down c)\nfly away",  # lost a line, runs, misses the goal
               GOOD]
    result, _ = run(answers, max_attempts=4)
    stages = [s.data["stages"] for s in result.signals]
    assert stages == [
        {"translate": True, "cc": True, "sim": False, "val": None},
        {"translate": True, "cc": True, "sim": True, "val": False},
        {"translate": False, "cc": True, "sim": True, "val": False},
        {"translate": True, "cc": True, "sim": True, "val": True}]
    assert [s.failure for s in result.signals] == [
        ["precondition"], ["goal"], ["translation", "goal"], []]
    assert [t.data["stages"]["val"] for t in result.transcript] == [None, False, False, True]


def test_stop_rule_samples_once_then_stops():
    result, backend = run(["(stack a b)"] * 5, max_attempts=5)
    assert not result.verified and result.attempts == 3
    assert strategies(result) == [None, "first_step_constraint", "budget_adaptive_retry"]
    assert [r.temperature for r in backend.requests] == [0.0, 0.0, 0.7]
    assert "no marginal gain" in result.transcript[-1].data["stopped"]


def test_default_budget_is_two_attempts():
    """The paper's mean attempt counts (1.91, 1.935, 1.767) and the authors'
    released result files both fit K = 2."""
    result, backend = run(["(unstack c a)\n(pick-up b)", FAILS_AT_4, GOOD])
    assert Config().max_attempts == 2
    assert not result.verified and result.attempts == 2 and len(backend.requests) == 2


def test_ablations():
    result, backend = run(["(stack a b)", "(stack a b)", GOOD], ablation="random_regeneration",
                          max_attempts=3)
    assert result.verified and result.attempts == 3
    assert all("Your previous plan" not in p for p in prompts(backend))
    assert [r.sample_index for r in backend.requests] == [0, 1, 2]
    result, backend = run([GOOD], ablation="shallow_constraints")
    assert "needs (holding" not in prompts(backend)[0]
    with pytest.raises(ConfigError):
        run([GOOD], ablation="nonsense")


def test_final_validation_only_gives_rc_the_binary_verdict_alone():
    """Without step-wise validation RC sees valid/not valid only: no step,
    predicate or goal reaches its directives or its stop rule."""
    result, backend = run([FAILS_AT_4, "(stack a b)", FAILS_AT_4, GOOD],
                          ablation="final_validation_only", max_attempts=4)
    assert result.verified
    assert strategies(result) == [None, "binary_feedback", "binary_feedback",
                                  "binary_feedback"]
    for p in prompts(backend)[1:]:
        repair = p.split("Repair instructions from checking earlier plans:")[1]
        repair = repair.split("\nWrite a plan")[0]  # the directives come last
        assert repair.strip() == "- The previous plan was not valid."
    # The stop rule's gain measure: 0 or 1, never the steps a plan executed (3 here).
    assert [s.data["progress"] for s in result.signals] == [0.0, 0.0, 0.0, 1.0]
    # No SIM: VAL judges every plan CC passes; CC's rejection is binary to RC too.
    assert [s.data["stages"]["sim"] for s in result.signals] == [None] * 4
    assert "(holding" not in result.transcript[1].verdict


def write_table(tmp_path, rows) -> str:
    path = tmp_path / "couplings.json"
    path.write_text(json.dumps(rows))
    return str(path)


def test_npmi_couplings_choose_parameter_swap_and_landmarks(tmp_path):
    # (stack, holding) fails once: not yet coupled, so Precondition Probing; it fails
    # again in the next plan: coupled (NPMI 1.00 over 2 events), so Parameter Swap &
    # Landmarks, here landmarks (no argument order of (stack a c) runs).
    result, backend = run([FAILS_AT_4, "(pick-up b)\n(stack a c)", GOOD], max_attempts=3)
    assert result.verified
    assert strategies(result) == [None, "precondition_probing", "parameter_swap_landmarks"]
    verdict = result.transcript[1].verdict
    assert "(stack, holding) is a high-coupling pair (NPMI 1.00 over 2 failures" in verdict
    assert "Before step 2 (stack a c), make true: (holding a), (clear a), (handempty)" in verdict
    assert result.transcript[1].data["coupling"][:4] == ["stack", "holding", 1.0, 2]
    # A coupling table from earlier runs makes the first failure coupled: swap.
    table = write_table(tmp_path, [["stack", "holding", 0.8, 12], ["stack", "clear", -0.4, 3]])
    result, backend = run([FAILS_AT_4, GOOD], couplings=table)
    assert strategies(result) == [None, "parameter_swap_landmarks"]
    assert "(stack b c) can: the argument order matters" in result.transcript[0].verdict
    assert "NPMI 0.80 over 12 failures in earlier runs" in result.transcript[0].verdict
    # Below the threshold, or too few events: no coupling.
    weak = write_table(tmp_path, [["stack", "holding", 0.3, 12]])
    result, _ = run([FAILS_AT_4, GOOD], couplings=weak)
    assert strategies(result) == [None, "precondition_probing"]
    result, _ = run([FAILS_AT_4, GOOD], couplings=table, coupling_min_count=20)
    assert strategies(result) == [None, "precondition_probing"]
    with pytest.raises(ConfigError, match="couplings"):
        run([GOOD], couplings=str(tmp_path / "missing.json"))


def test_couplings_read_from_a_report(tmp_path):
    report = {"analyses": [
        {"method": "closed-loop", "npmi": [["stack", "holding", 0.9, 4]], "npmi_negative": []},
        {"method": "backprompt", "npmi": [["stack", "clear", 1.0, 9]]}]}
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    result, _ = run([FAILS_AT_4, GOOD], couplings=str(path))
    assert strategies(result) == [None, "parameter_swap_landmarks"]


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
    # What SIM executed (Figures 10 and 11): the actions up to the failing step and
    # the predicates of their preconditions.
    assert s.data["actions"] == ["unstack", "pick-up"]
    assert s.data["predicates"] == sorted(["on", "clear", "handempty",
                                           "ontable", "clear", "handempty"])


def test_symbol_translation_by_signature(planbench):
    from veriplan.methods.closed_loop.contracts import TextPlan
    from veriplan.methods.closed_loop.st import translate

    # "lift b": no such action, and two actions take one object: unmapped, reported.
    plan = translate(TextPlan("(lift b)\n(unstack c a)", 1), TASK)
    assert [str(s) for s in plan.steps] == ["(unstack c a)"]
    assert plan.unmapped[0].line == 1 and "not an action" in plan.unmapped[0].reason
    # Logistics: drive-truck is the only action of four objects, so it maps by structure.
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


def test_translation_never_drops_an_object_the_line_names(data_dir):
    """With a PlanBench config, a line may also be read as natural language, but
    a reading that drops an object the line names is no reading: Mystery's
    attack takes one object, and "(attack a b)" is not "attack [article] b"."""
    from veriplan.bench.datasets import load_dataset
    from veriplan.methods.closed_loop.contracts import TextPlan
    from veriplan.methods.closed_loop.st import translate

    inst = load_dataset("mystery_blocksworld_3", data_dir).instances[0]
    text = "(attack a b)\nattack a b\nattack object a\nfeast object b from object a"
    plan = translate(TextPlan(text, 1), inst.task(), inst.planbench_config())
    assert [str(s) for s in plan.steps] == ["(attack a)", "(feast b a)"]
    assert [(u.line, u.reason) for u in plan.unmapped] == [
        (1, "attack takes 1 object(s), 2 named"), (2, "attack takes 1 object(s), 2 named")]
    inst = load_dataset("blocksworld_3", data_dir).instances[0]  # a is the red block
    plan = translate(TextPlan("pick up a red block", 1), inst.task(), inst.planbench_config())
    assert [str(s) for s in plan.steps] == ["(pick-up a)"] and not plan.unmapped


def _outcome(result):
    return (result.verified, result.attempts,
            [(t.data["strategy"], s.failed_step, tuple(s.failure), len(t.plan))
             for t, s in zip(result.transcript, result.signals, strict=True)])


_NAME = re.compile(r"[A-Za-z0-9_\-]+")


def renamed_text(text: str, renaming) -> list[str]:
    """``text`` split into names and what lies between, each name put through
    ``renaming`` (actions, predicates, objects)."""
    table = {**renaming.objects, **renaming.predicates, **renaming.actions}
    out, last = [], 0
    for m in _NAME.finditer(text):
        out += [text[last:m.start()], m.group()]
        last = m.end()
    out.append(text[last:])
    return [(table.get(t, t), t) if i % 2 else (t, t) for i, t in enumerate(out)]


def equal_up_to_renaming(a: str, b: str, renaming) -> bool:
    """Each name of ``a`` is either the same name in ``b`` or its renaming
    (an object named ``a`` and the word "a" cannot be told apart by text)."""
    pa, pb = renamed_text(a, renaming), [t for t, _ in renamed_text(b, renaming)]
    return len(pa) == len(pb) and all(y in (new, old) for (new, old), y in zip(pa, pb))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_same_outcomes_and_prompts_on_a_renamed_domain(planbench, seed):
    base = planbench / "instances/blocksworld/mystery"
    task = load_task(base / "generated_domain.pddl", base / "generated_basic_3/instance-7.pddl")
    renamed, renaming = obfuscate(task, seed=seed)
    a_backend = ScriptedBackend(fn=StructuralModel())
    b_backend = ScriptedBackend(fn=StructuralModel())
    a = solve(task, LLM(a_backend), Config(max_attempts=3))
    b = solve(renamed, LLM(b_backend), Config(max_attempts=3))
    assert _outcome(a) == _outcome(b)
    assert a.verified and a.attempts == 3
    assert [t.data["strategy"] for t in a.transcript] == [None, "first_step_constraint",
                                                      "precondition_probing"]
    assert [t.plan for t in b.transcript] != [t.plan for t in a.transcript]
    # The prompts themselves, C and every repair directive included, are the same
    # text up to the renaming (nothing in them depends on a name or its sort order).
    pa, pb = prompts(a_backend), prompts(b_backend)
    assert len(pa) == len(pb) == 3 and pa != pb
    for x, y in zip(pa, pb, strict=True):
        assert equal_up_to_renaming(x, y, renaming), (x, y)
    assert not equal_up_to_renaming(pa[1], pb[1].replace("before", "after", 1), renaming)
