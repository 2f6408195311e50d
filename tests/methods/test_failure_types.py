"""``SolveResult.failure`` is typed (issue 30): every failure a method reports
is a member of its own enum (``veriplan.methods.failures``), a bare string is
refused, and a run store gives a stored failure back as that member; a text
the unit's method does not report is a RecordError naming the unit and the
field, never relabelled."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.domains.test_blocksworld import standard_task
from tests.methods.aec import kitchen
from tests.methods.aec.helpers import task as kitchen_task
from tests.methods.aec.helpers import three_plans
from tests.methods.baselines.test_react import turns
from tests.methods.drip.scripts import table_decomposer
from tests.methods.drip.test_drip import FIGURE, llm_for
from tests.methods.drip.test_mapping import _wet_task
from tests.methods.sqbcp.test_sqbcp import task as pancakes
from veriplan.bench.analysis import failure_composition
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.core.verdict import Scope
from veriplan.errors import BadRequestError, RecordError
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods import SolveResult
from veriplan.methods.failures import (
    REPORTED_BY,
    AecFailure,
    AutoToSFailure,
    CotFailure,
    DripFailure,
    HiddenTaskFailure,
    OnTaskFailure,
    ReactFailure,
    read_failure,
)


def reported(r: SolveResult, member: object) -> None:
    """``r`` failed with exactly ``member``, an enum member its method reports
    (not a string that only equals one)."""
    assert not r.verified
    assert r.failure is member, (r.method, r.failure)
    assert type(r.failure) in REPORTED_BY[r.method]
    # what the store keeps is the same text as before the enums
    assert json.loads(json.dumps(r.to_dict()))["failure"] == member.value  # type: ignore[attr-defined]


# ----- every method's failure paths give members -------------------------------------------

def test_drip_failures_are_members():
    from veriplan.methods.drip import Config, solve

    llm, _ = llm_for(table_decomposer(FIGURE))
    reported(solve(standard_task(), llm, Config(max_llm_calls=1)), DripFailure.CALL_BUDGET)
    llm, _ = llm_for(table_decomposer(FIGURE))
    reported(solve(_wet_task(), llm), OnTaskFailure.NOT_VERIFIED_ON_TASK)


def test_cot_failures_are_members():
    from veriplan.methods.baselines.cot import solve

    def cot(answer: str) -> SolveResult:
        return solve(standard_task(), LLM(ScriptedBackend([answer])))

    reported(cot("Plan:\nstack yellow red\n"), CotFailure.PRECONDITION)
    reported(cot("Plan:\nstack red orange\n"), CotFailure.GOAL)
    reported(cot("I am not sure."), CotFailure.NO_PLAN)
    reported(cot("Plan:\nstack red orange\nthen celebrate\nstack yellow red\n"),
             CotFailure.UNREAD_LINES)


def test_react_failures_are_members():
    from veriplan.methods.baselines.react import solve

    r = solve(standard_task(), LLM(ScriptedBackend(turns(*(["stack yellow red"] * 5)))))
    reported(r, ReactFailure.INVALID_ACTIONS)


@pytest.fixture
def fakekitchen():
    from veriplan.envs import ENVS
    from veriplan.methods.aec.domain import ENV_MODELS

    ENVS.register("fakekitchen", kitchen.FakeKitchen)
    ENV_MODELS.register("fakekitchen", kitchen.model())
    yield
    ENVS.unregister("fakekitchen")
    ENV_MODELS.unregister("fakekitchen")


def test_aec_failures_are_members(fakekitchen, tmp_path, monkeypatch):
    from veriplan.methods.aec import Config, solve
    from veriplan.methods.aec.domain import ENV_MODELS, EnvModel

    monkeypatch.setenv("VERIPLAN_CACHE", str(tmp_path / "cache"))

    def aec(t=None, config=None) -> SolveResult:
        llm = LLM(ScriptedBackend(fn=kitchen.Model([three_plans()])))
        return solve(t or kitchen_task(), llm, config or Config())

    reported(aec(config=Config(max_steps=4)), AecFailure.STEP_BUDGET)
    reported(aec(kitchen_task(die_after=1)), AecFailure.ENV_ERROR)
    ENV_MODELS.register("fakekitchen", EnvModel("fakekitchen"))  # no action model
    reported(aec(), AecFailure.NO_ACTION_MODEL)


def test_autotos_failures_are_members(data_dir):
    from veriplan.methods.autotos import Config, solve
    from veriplan.methods.autotos.problem import AutoToSProblem

    def block(code: str) -> str:
        return f"```python\n{code}```\n"

    succ = "def succ(state):\n    return []\n"
    backend = ScriptedBackend([block(succ), block("def goal(state):\n    return True\n"),
                               BadRequestError("Requested tokens exceed context window")])
    r = solve(AutoToSProblem("24game", Path(data_dir)), LLM(backend),
              Config(eval_limit=5, evaluate_progress=False))
    reported(r, AutoToSFailure.CONTEXT_EXCEEDED)


def test_hidden_task_failures_are_members():
    from veriplan.methods.baselines.hidden import Config, direct

    butter = "Plan:\n1. Mix flour and eggs into a batter\n2. Fry the batter in butter\n"
    reported(direct(pancakes(), LLM(ScriptedBackend([butter])), Config(k=0)),
             HiddenTaskFailure.VIOLATION)
    reported(direct(pancakes(), LLM(ScriptedBackend(["I cannot help."])), Config(k=0)),
             HiddenTaskFailure.NO_PLAN)


def test_a_bare_string_or_another_methods_member_is_refused():
    with pytest.raises(TypeError, match="method drip: failure 'goal_conflict'"):
        SolveResult("drip", False, [], 1, 0, 0, 0.0, failure="goal_conflict")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="method drip: failure 'env_error'"):
        SolveResult("drip", False, [], 1, 0, 0, 0.0, failure=AecFailure.ENV_ERROR)
    ok = SolveResult("drip", False, [], 1, 0, 0, 0.0, failure=OnTaskFailure.INVALID_ON_TASK)
    assert ok.to_dict()["failure"] == "invalid_on_task"


def test_every_value_stored_before_the_enums_is_a_member():
    """The texts the methods wrote before failures were typed (read off the
    code before the change and the stores in results/) are all still there."""
    before = {
        "drip": ["actuator_lost_condition", "invalid_plan", "incomplete_decomposition",
                 "goal_conflict", "decomposition", "max_iter", "call_budget", "stalled",
                 "not_verified_on_task", "invalid_on_task"],
        "cot": ["no_plan", "unread_lines", "precondition", "goal", "not_verified_on_task",
                "invalid_on_task"],
        "react": ["too_long", "invalid_actions", "precondition", "goal", "invalid_on_task"],
        "aec": ["no_action_model", "env_error", "not_won", "replan_cap", "step_budget", "done"],
        "autotos": ["budget_exhausted", "context_exceeded", "inaccurate"],
        "sqbcp": ["no_plan", "violation", "unknown", "wrong", "not_judged"],
        "hidden-react": ["no_plan", "violation", "unknown", "wrong"],
    }
    for method, texts in before.items():
        for text in texts:
            member = read_failure(text, method=method, record="r")
            assert member == text and type(member) in REPORTED_BY[method]


# ----- the run store reads failures back as members --------------------------------------

def _unit(uid: str, method: str, failure: str | None) -> UnitRecord:
    result = json.dumps({"method": method, "verified": failure is None, "plan": [],
                         "failure": failure})
    return UnitRecord(uid, method, "d", uid, "b", "m", "{}", 0, "done", failure is None,
                      None, 1, 1, 0.0, 1.0, None, None, result, "v", "dv", 0.0,
                      Scope.PLAN_ON_TASK)


def test_a_stored_failure_reads_back_as_the_member(tmp_path):
    store = RunStore(tmp_path)
    store.add(_unit("u1", "drip", "goal_conflict"))
    store.add(_unit("u2", "aec", "env_error"))
    store.add(_unit("u3", "drip", None))
    recs = {r.id: r for r in RunStore(tmp_path).records()}
    assert recs["u1"].failure is DripFailure.GOAL_CONFLICT
    assert recs["u1"].result_dict()["failure"] is DripFailure.GOAL_CONFLICT
    assert recs["u2"].result_dict()["failure"] is AecFailure.ENV_ERROR
    assert recs["u3"].failure is None
    # statistics that group by failure group by the same text
    counts = failure_composition(list(recs.values()))
    assert counts == {"env_error": 1, "goal_conflict": 1}
    assert {type(k) for k in counts} == {AecFailure, DripFailure}


@pytest.mark.parametrize("method, text", [
    ("drip", "the model gave up"),  # free text no method ever wrote
    ("drip", "env_error"),  # another method's failure, not relabelled as DRIP's
    ("backprompt", "precondition"),  # a method that reports no failure of its own
])
def test_an_unknown_stored_failure_names_the_unit_and_the_field(tmp_path, method, text):
    store = RunStore(tmp_path)
    store.add(_unit("unit-7f3a", method, text))
    rec = next(RunStore(tmp_path).records())
    with pytest.raises(RecordError, match=r"unit unit-7f3a \(\w+\): field failure holds"):
        rec.result_dict()
    with pytest.raises(RecordError, match=r"unit unit-7f3a .*field failure"):
        _ = rec.failure
