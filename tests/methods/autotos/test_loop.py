"""The AutoToS loop with scripted answers: each feedback path of the paper,
and the budget. Generated code runs in the real sandbox."""

from __future__ import annotations

import pytest

from veriplan.domains.autotos import get_domain
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.autotos import Config, reference, run_loop

FAST = Config(eval_limit=30, evaluate_progress=False)
DOMAIN = get_domain("24game")
SUCC = DOMAIN.reference_code("succ")
GOAL = DOMAIN.reference_code("goal")


def block(code: str) -> str:
    return f"Here it is.\n```python\n{code}```\n"


@pytest.fixture(scope="module")
def data(data_dir):
    return DOMAIN.load(data_dir)


def loop(data, answers, config=FAST):
    backend = ScriptedBackend([block(a) if "def " in a else a for a in answers])
    rec = run_loop(DOMAIN, data, LLM(backend), config)
    return rec, backend


def feedback_of(rec) -> list[str]:
    return [s["feedback"] for s in rec.steps if s["kind"] == "failure"]


def test_correct_components_pass_with_two_calls(data):
    rec, _ = loop(data, [SUCC, GOAL])
    assert rec.status == "passed" and rec.calls == {"succ": 1, "goal": 1}
    assert rec.categories == {} and rec.accuracy["final"]["accuracy"] == 1.0


def test_unsound_goal_test_gets_the_failing_state(data):
    rec, backend = loop(data, [SUCC, "def goal(state):\n    return 24 in state\n", GOAL])
    assert rec.status == "passed" and rec.categories == {"goal_soundness": 1}
    text = feedback_of(rec)[0]
    assert "[24, 1]" in text and "returns False for this input" in text
    assert backend.requests[2].messages[-1].content == text  # sent back in the goal chat


def test_incomplete_goal_test(data):
    rec, _ = loop(data, [SUCC, "def goal(state):\n    return False\n", GOAL])
    assert rec.categories == {"goal_soundness": 1}
    assert "returns True for this input" in feedback_of(rec)[0]


def test_input_mutation(data):
    mutating = SUCC.replace("out = []", "state.sort(reverse=True)\n    out = []")
    rec, _ = loop(data, [mutating, GOAL, SUCC])
    assert rec.categories == {"input_changed": 1} and rec.status == "passed"
    assert "changed its input state" in feedback_of(rec)[0]


def test_slow_successor_function(data):
    rec, _ = loop(data, ["def succ(state):\n    while True:\n        pass\n", GOAL, SUCC])
    assert rec.categories == {"succ_too_slow": 1} and rec.status == "passed"


def test_partial_soundness_failure(data):
    rec, _ = loop(data, ["def succ(state):\n    return [list(state)]\n", GOAL, SUCC])
    assert rec.categories == {"succ_soundness": 1}
    text = feedback_of(rec)[0]
    assert "wrong length" in text and "Example wrong successor state" in text


def test_incomplete_successor_function(data):
    only_add = ("def succ(state):\n    out = []\n    for i in range(len(state)):\n"
                "        for j in range(i + 1, len(state)):\n"
                "            rest = [x for k, x in enumerate(state) if k not in (i, j)]\n"
                "            out.append(rest + [state[i] + state[j]])\n    return out\n")
    rec, _ = loop(data, [only_add, GOAL, SUCC])
    assert rec.categories == {"succ_completeness": 1} and rec.status == "passed"
    assert "Missing successors" in feedback_of(rec)[0]


def test_exception_in_the_successor_function(data):
    rec, _ = loop(data, ["def succ(state):\n    return [[state[0] / 0]]\n", GOAL, SUCC])
    assert rec.categories == {"succ_exception": 1}
    assert "ZeroDivisionError" in feedback_of(rec)[0]


def test_answer_without_code(data):
    rec, _ = loop(data, ["I would rather explain the rules.", SUCC, GOAL])
    assert rec.categories == {"parse_error": 1} and rec.calls == {"succ": 2, "goal": 1}


def test_budget_exhaustion(data):
    wrong = "def goal(state):\n    return True\n"
    rec, _ = loop(data, [SUCC] + [wrong] * 5,
                  Config(eval_limit=10, evaluate_progress=False, max_calls_per_function=3))
    assert rec.status == "budget_exhausted" and rec.calls == {"succ": 1, "goal": 3}
    assert rec.categories == {"goal_soundness": 3}


def test_accuracy_at_the_three_points(data):
    rec, _ = loop(data, [SUCC, "def goal(state):\n    return 24 in state\n", GOAL],
                  Config(eval_limit=30))
    assert set(rec.accuracy) == {"initial", "sound", "final"}
    assert rec.accuracy["initial"]["accuracy"] < 1.0 == rec.accuracy["final"]["accuracy"]


def test_reference_components_solve_every_instance(data):
    r = reference(DOMAIN, data)
    assert r["valid"] == r["instances"] == 1352 and r["accuracy"] == 1.0


def test_blocksworld_reference_is_optimal_and_the_arm_blooper_is_caught(data_dir):
    """The paper's Blocksworld blooper: unstacking without checking that the arm
    is empty makes the held block vanish. The unit tests and the partial check
    pass it (a superset of the successors, towers still balanced), so only the
    independent validation of the solutions shows it: invalid PDDL plans."""
    bw = get_domain("blocksworld")
    bw_data = bw.load(data_dir)
    r = reference(bw, bw_data)
    assert r["optimal"] == r["instances"] == 502
    succ = bw.reference_code("succ")
    unstack_anyway = (
        "    for x in clear:\n"
        "        for a, b in on:\n"
        "            if a == x and not state['arm-empty']:\n"
        "                out.append({'clear': [c for c in clear if c != x] + [b],\n"
        "                            'on-table': list(table), 'arm-empty': False,\n"
        "                            'holding': x, 'on': [list(p) for p in on if p[0] != x]})\n"
        "    if state[\"arm-empty\"]:\n")
    blooper = succ.replace('    if state["arm-empty"]:\n', unstack_anyway, 1)
    assert blooper != succ
    backend = ScriptedBackend([block(blooper), block(bw.reference_code("goal"))])
    rec = run_loop(bw, bw_data, LLM(backend), Config(eval_limit=100, evaluate_progress=False))
    assert rec.status == "passed" and rec.categories == {}
    final = rec.accuracy["final"]
    assert final["accuracy"] < 1.0 and final["categories"].get("invalid_solution", 0) > 0
    assert "no single action leads" in final["invalid_examples"][0]["problem"]


def test_code_that_does_not_parse_goes_back_to_its_own_function(data):
    rec, backend = loop(data, ["def succ(state):\n    return [(\n", GOAL, SUCC])
    assert rec.status == "passed" and rec.categories == {"parse_error": 1}
    assert rec.calls == {"succ": 2, "goal": 1}
    assert "does not parse" in backend.requests[2].messages[-1].content
    assert "def succ" in backend.requests[2].messages[-2].content  # the succ chat


def test_a_conversation_too_long_for_the_model_ends_the_run_with_a_record(data):
    from veriplan.errors import BadRequestError

    backend = ScriptedBackend([block(SUCC), block("def goal(state):\n    return True\n"),
                               BadRequestError("Requested tokens exceed context window")])
    rec = run_loop(DOMAIN, data, LLM(backend), FAST)
    assert rec.status == "context_exceeded" and rec.calls == {"succ": 1, "goal": 2}
    assert rec.steps[-1]["kind"] == "stop"


def test_evidence_with_set_states_comes_back(data_dir):
    """PrOntoQA states are sets; a failure's evidence must still travel as JSON."""
    pq = get_domain("prontoqa")
    pq_data = pq.load(data_dir)
    two_facts = ("def succ(state, rules):\n    return [state | {y, 'extra'} "
                 "for x, y in rules if x in state and y not in state]\n")
    backend = ScriptedBackend([block(two_facts), block(pq.reference_code("goal")),
                               block(pq.reference_code("succ"))])
    rec = run_loop(pq, pq_data, LLM(backend), Config(eval_limit=50, evaluate_progress=False))
    assert rec.status == "passed" and rec.categories == {"succ_soundness": 1}
    failure = next(s for s in rec.steps if s["kind"] == "failure")
    assert isinstance(failure["evidence"]["state"], list)
    assert rec.accuracy["final"]["accuracy"] == 1.0
