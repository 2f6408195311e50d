"""The back-prompting loop, driven by the scripted backend."""

from __future__ import annotations

from tests.conftest import EXAMPLES
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods import PlanningProblem
from veriplan.methods.backprompt import BackpromptConfig, solve
from veriplan.pddl.task import load_task
from veriplan.planio import PlanBenchConfig

TASK = load_task(EXAMPLES / "blocks-domain.pddl", EXAMPLES / "blocks-problem.pddl")
CFG = PlanBenchConfig.from_yaml(EXAMPLES / "blocks-planbench.yaml")
GOOD = (EXAMPLES / "blocks-plan.txt").read_text()
GOOD_NL = (EXAMPLES / "blocks-plan-planbench.txt").read_text()


def test_feedback_then_verified_pddl_mode():
    backend = ScriptedBackend(["(unstack c a)\n(pick-up b)\n[PLAN END]", GOOD])
    result = solve(TASK, LLM(backend))
    assert result.verified and result.attempts == 2 and result.llm_calls == 2
    assert result.plan == [line for line in GOOD.splitlines() if line]
    assert result.solved_by == "llm"
    second = backend.requests[1].messages
    assert [m.role for m in second] == ["user", "assistant", "user"]
    assert "(define (domain blocks)" in second[0].content
    assert "step 2 (pick-up b): precondition (handempty) is false" in second[2].content.lower()


def test_planbench_mode_speaks_the_configs_words():
    backend = ScriptedBackend(["pick up the blue block\nstack the blue block on top of the "
                               "red block\n[PLAN END]", GOOD_NL])
    result = solve(PlanningProblem(TASK, CFG), LLM(backend))
    assert result.verified and result.attempts == 2
    first = backend.requests[0].messages[0].content
    assert "[STATEMENT]" in first and first.rstrip().endswith("[PLAN]")
    feedback = backend.requests[1].messages[2].content
    assert ("Step 2 (stack the blue block on top of the red block) cannot be executed, "
            "because it needs that the red block is clear") in feedback


def test_budget_exhausted_reports_last_diagnosis():
    backend = ScriptedBackend(["I would move blocks around."] * 3)
    result = solve(PlanningProblem(TASK, CFG), LLM(backend), BackpromptConfig(max_attempts=3))
    assert not result.verified and result.plan == [] and result.attempts == 3
    assert "No action could be read" in result.last_diagnosis
    assert '"pick up the X"' in result.last_diagnosis
    assert len(result.transcript) == 3 and result.solved_by is None
    d = result.to_dict()
    for key in ("verified", "plan", "attempts", "llm_calls", "tokens", "seconds"):
        assert key in d


def test_events_are_emitted_in_order():
    events = []
    solve(TASK, LLM(ScriptedBackend([GOOD])), observer=lambda e: events.append(e.kind))
    assert events == ["prompt", "response", "verdict"]


def test_backprompting_on_a_numeric_benchmark(data_dir):
    """IPC 2002 zenotravel (numeric), instance 2: the verifier's feedback names the
    fuel comparison and its values; the second answer (ENHSP's plan) is verified."""
    from pathlib import Path

    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.backprompt import solve
    from veriplan.pddl.task import load_task

    variant = data_dir / "ipc-dev" / "ipc-2002" / "zenotravel-numeric-automatic"
    task = load_task(variant / "domain.pddl", variant / "instances" / "instance-2.pddl")
    plans = Path(__file__).resolve().parents[1] / "data" / "ipc_plans" / "ipc-2002"
    good = (plans / "zenotravel-numeric-automatic" / "instance-2.plan").read_text()
    bad = "\n".join(line for line in good.splitlines() if "refuel" not in line)
    result = solve(task, LLM(ScriptedBackend([bad, good])))
    assert result.verified and result.attempts == 2
    assert "(fuel plane1) = 1773" in result.transcript[0].verdict
