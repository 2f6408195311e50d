"""hidden-tos (issue 33): Thoughts of Search as SQ-BCP's baseline on
hidden-fact PDDL. The model's code runs in the sandbox, a bounded BFS plans,
the task's decider judges the path; bad code ends as "no plan" with a typed
reason; the natural-language families are refused; the controlled model's
ToS code plans, and its omission rate confuses the start state's facts."""

from __future__ import annotations

import ast
import math
import re

import pytest

from veriplan.bench.datasets import load_dataset
from veriplan.llm import LLM
from veriplan.llm.backends.scripted import ScriptedBackend
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods import get_method
from veriplan.methods.baselines import render
from veriplan.methods.baselines.hidden import _Setting
from veriplan.methods.baselines.hidden_tos import (
    Config,
    ToSError,
    UnsupportedFamilyError,
    tos,
)
from veriplan.methods.failures import HiddenTaskFailure
from veriplan.methods.sqbcp.controlled import ControlledBackend


@pytest.fixture(scope="module")
def tasks(data_dir):
    return [i.problem() for i in list(load_dataset("sqbcp_pddl_hidden", data_dir)
                                      .instances)[:20]]


# Blocksworld, hand-written as a model would: the start from the known facts and
# the answers, the four actions, the goal test of instance-1 ((on c b)).
BLOCKS = '''```python
OBJ = ("a", "b", "c", "d")

def initial_state():
    return frozenset({"(ontable a)", "(ontable d)", "(clear d)", "(clear b)", "(on b c)",
                      "(clear a)", "(ontable c)", "(handempty)"})

def successor_states(state):
    for x in OBJ:
        if {f"(clear {x})", f"(ontable {x})", "(handempty)"} <= state:
            yield f"(pick-up {x})", (state - {f"(clear {x})", f"(ontable {x})",
                                              "(handempty)"}) | {f"(holding {x})"}
        if f"(holding {x})" in state:
            yield f"(put-down {x})", (state - {f"(holding {x})"}) | {
                f"(clear {x})", "(handempty)", f"(ontable {x})"}
        for y in OBJ:
            if {f"(clear {y})", f"(holding {x})"} <= state:
                yield f"(stack {x} {y})", (state - {f"(clear {y})", f"(holding {x})"}) | {
                    "(handempty)", f"(clear {x})", f"(on {x} {y})"}
            if {f"(on {x} {y})", f"(clear {x})", "(handempty)"} <= state:
                yield f"(unstack {x} {y})", (state - {f"(on {x} {y})", f"(clear {x})",
                                                      "(handempty)"}) | {
                    f"(holding {x})", f"(clear {y})"}

def is_goal(state):
    return "(on c b)" in state
```'''


def test_the_models_code_is_searched_and_its_path_judged_by_the_decider(tasks):
    t = tasks[0]  # blocksworld/instance-1: (on c b)
    be = ScriptedBackend(["Ask: Is it true that (clear b)?\nAsk: Is it true that (on b c)?",
                          BLOCKS])
    r = tos(t, LLM(be), Config(k=1))
    assert r.verified and r.failure is None and r.method == "hidden-tos"
    assert r.plan == ["(unstack b c)", "(put-down b)", "(pick-up c)", "(stack c b)"]
    m = r.metrics
    assert m["tos_error"] is None and m["queries"] == 2 and not m["violated"]
    assert m["expanded"] > 0 and m["generated"] >= m["expanded"]
    # the start holds atoms neither stated nor answered: (clear a), (ontable c), (handempty)
    assert m["assumed"] == 3
    first, second = (q.messages[-1].content for q in be.requests)
    assert 'write only lines of the form "Ask:' in first and "successor_states(state)" in first
    assert "Answers you were given:\n- Is it true that (clear b)? Yes" in second
    assert 'lines of the form "Ask:' not in second
    search = [e for e in r.transcript if e.role == "search"]
    assert len(search) == 1 and search[0].call is None and search[0].ok
    assert search[0].plan == r.plan


def test_a_plan_the_true_task_refutes_is_a_violation(tasks):
    """The search plans on the start the code states; the decider judges on the truth."""
    t = tasks[0]
    wrong = BLOCKS.replace('"(on b c)",', '"(on b a)", "(clear c)",').replace('"(clear a)",', "")
    r = tos(t, LLM(ScriptedBackend([wrong])), Config(k=1, oracle=False))
    assert not r.verified and r.failure is HiddenTaskFailure.VIOLATION
    assert r.plan == ["(pick-up c)", "(stack c b)"] and r.metrics["violated"]


LOOP = "```python\ndef initial_state():\n    return frozenset()\n" \
       "def successor_states(state):\n    while True:\n        pass\n" \
       "def is_goal(state):\n    return False\n```"


@pytest.mark.parametrize("answer, error, function", [
    ("I would search breadth-first.", ToSError.NO_CODE, ""),
    ("```python\ndef initial_state(:\n    return 1\n```", ToSError.PARSE_ERROR, ""),
    ("```python\ndef initial_state():\n    return frozenset()\n"
     "def successor_states(state):\n    raise KeyError('x')\n"
     "def is_goal(state):\n    return False\n```", ToSError.EXCEPTION, "successor_states"),
    (LOOP, ToSError.TIMEOUT, "successor_states"),
    ("```python\ndef initial_state():\n    return 3\ndef successor_states(state):\n"
     "    return []\ndef is_goal(state):\n    return False\n```",
     ToSError.BAD_VALUE, "initial_state"),
    ("```python\ndef initial_state():\n    return frozenset()\n"
     "def successor_states(state):\n    return []\n```", ToSError.MISSING_FUNCTION, "is_goal"),
    ("```python\ndef initial_state():\n    return frozenset({'(a)'})\n"
     "def successor_states(state):\n    return [('(noop)', state)]\n"
     "def is_goal(state):\n    return False\n```", ToSError.EXHAUSTED, ""),
])
def test_bad_code_ends_as_no_plan_with_its_reason(tasks, answer, error, function):
    r = tos(tasks[0], LLM(ScriptedBackend([answer])), Config(oracle=False, call_limit=0.3))
    assert not r.verified and r.plan == [] and r.failure is HiddenTaskFailure.NO_PLAN
    assert r.metrics["tos_error"] is error and r.metrics["tos_function"] == function
    assert r.metrics["tos_detail"]
    assert r.to_dict()["metrics"]["tos_error"] == error.value


def test_the_search_is_bounded_by_its_named_settings(tasks):
    r = tos(tasks[0], LLM(ScriptedBackend([BLOCKS])), Config(oracle=False, max_depth=3))
    assert r.metrics["tos_error"] is ToSError.BUDGET and "max_depth" in r.metrics["tos_detail"]
    r = tos(tasks[0], LLM(ScriptedBackend([BLOCKS])), Config(oracle=False, max_expansions=2))
    assert r.metrics["tos_error"] is ToSError.BUDGET and r.metrics["expanded"] == 2


@pytest.mark.parametrize("dataset", ["sqbcp_recipes", "sqbcp_howto"])
def test_the_natural_language_families_are_refused(dataset):
    t = load_dataset(dataset).instances[0].problem()
    be = ScriptedBackend([])
    with pytest.raises(UnsupportedFamilyError, match=rf"{t.family}.*no symbolic state"):
        tos(t, LLM(be), Config())
    assert be.requests == []  # refused before any model call


def test_it_is_registered_with_its_settings():
    spec = get_method("hidden-tos")
    c = spec.make_config({"max_depth": "7", "oracle": "false"})
    assert c.max_depth == 7 and c.oracle is False and spec.problem.value == "hidden"


# ----- the controlled model ---------------------------------------------------------------

def test_the_controlled_models_code_plans_through_the_sandbox(tasks):
    be = ControlledBackend("sqbcp:p_hidden=0,acc=0.5,seed=0", tasks=tasks)
    results = [tos(t, LLM(be), Config(k=1)) for t in tasks[:6]]
    assert all(r.verified for r in results), [r.last_diagnosis for r in results]
    assert all(r.metrics["queries"] > 0 for r in results)  # it asked first, as it does
    code = results[0].transcript[-2].response
    assert "def successor_states(state):" in code and "def is_goal(state):" in code


def within(hits: int, n: int, p: float, z: float = 3.29) -> bool:
    half = z * math.sqrt(p * (1 - p) / n) + 1 / n
    return abs(hits / n - p) <= half


def _start(backend: ControlledBackend, t, config: Config) -> set[str]:
    """The START the controlled model's code gives, for the prompt ToS sends."""
    prompt = render("hidden_tos.j2", **_Setting(t, config.shared()).values)
    text = backend.complete(LLMRequest((Message("user", prompt),))).text
    m = re.search(r"^START = frozenset\((.*)\)$", text, re.M)
    assert m, text
    return set(ast.literal_eval(m.group(1)))


def test_omission_confuses_start_facts_at_rate_p(data_dir):
    """Without asking and with every guess right (acc = 1), a hidden fact the
    prompt does not state is confused (left out, one argument swapped in its
    place) exactly when it is omitted: at rate p."""
    many = [i.problem() for i in list(load_dataset("sqbcp_pddl_hidden", data_dir)
                                      .instances)[:60]]
    p = 0.3
    n = confused = 0
    for t in many:  # a backend per task: some of these tasks share their goal line
        be = ControlledBackend(f"sqbcp:p_hidden={p},acc=1,seed=5", tasks=[t])
        start = _start(be, t, Config(k=0, oracle=False))
        text = render("hidden_tos.j2", **_Setting(t, Config(k=0).shared()).values)
        for q in t.latent:
            # a true withheld fact some step involves, the prompt silent on it
            if q.holds and q.subject not in text and any(
                    set(q.subject[1:-1].split()[1:]) & set(s[1:-1].split()[1:])
                    for s in t.reference):
                n += 1
                confused += q.subject not in start
    assert n > 150
    assert within(confused, n, p), (confused, n)
    assert all(_start(ControlledBackend("sqbcp:p_hidden=0,acc=1,seed=5", tasks=[t]), t,
                      Config(k=0, oracle=False)) <= t.payload["closed_world"][0]
               for t in many[:20])  # p = 0: every start fact true


def test_the_violation_rate_responds_to_p_seeded(tasks):
    """Seeded: blocksworld/instance-13 at k = 1. With p = 0 the code's start
    holds only true facts and the plan is valid; with p = 1 (seed 1) a fact is
    confused into (on a d) and the shortest plan unstacks a from d: a violation."""
    t = next(x for x in tasks if x.id == "blocksworld/instance-13")
    ok = tos(t, LLM(ControlledBackend("sqbcp:p_hidden=0,acc=0.5,seed=1", tasks=tasks)),
             Config(k=1))
    assert ok.verified and not ok.metrics["violated"]
    bad = tos(t, LLM(ControlledBackend("sqbcp:p_hidden=1,acc=0.5,seed=1", tasks=tasks)),
              Config(k=1))
    assert bad.failure is HiddenTaskFailure.VIOLATION and "(unstack a d)" in bad.plan
