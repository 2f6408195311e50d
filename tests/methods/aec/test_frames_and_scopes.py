"""Issue 30, part 4, with scripted models in a ScienceWorld-like lab (the real
ScienceWorld model, no Java): AEC's w obeys the environment's frame rules (an
``in`` fact lasts one observation, so a stale one can no longer satisfy a
stated precondition); V on ScienceWorld is gated by something grounded (goal
forms from the task text, preconditions the engine's refusals show) and
three-valued; a commit V could not check is recorded as unchecked and counted
apart from grounded commits."""

from __future__ import annotations

import json

import pytest

from tests.methods.aec import kitchen, lab
from veriplan.core.verdict import FindingKind, Judgement, Scope, Verdict
from veriplan.envs.base import Fact
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.aec import Config, solve
from veriplan.methods.aec.domain import env_model
from veriplan.methods.aec.hypotheses import build, read_plan
from veriplan.methods.aec.repair import RuleBook
from veriplan.methods.aec.state import GroundedStore
from veriplan.methods.aec.verifier import verify

APPLE_HERE = {"predicate": "in", "args": ["apple", "kitchen"], "value": True}


def run(monkeypatch, rounds, **config):
    lab.patch(monkeypatch)
    model = kitchen.Model(rounds)
    cfg = Config(**{"max_replans": 2, **config})
    return solve(lab.task(), LLM(ScriptedBackend(fn=model)), cfg), model


def verifies(result) -> list:
    return [e for e in result.transcript if e.role == "verify"]


@pytest.fixture
def sw():
    model = env_model("scienceworld")
    book = RuleBook(model.rules, persistent=model.persistent)
    return model, book


def test_a_stale_in_fact_never_satisfies_a_stated_precondition(monkeypatch):
    """The apple is seen in the kitchen, then rots away on the first step. The
    environment's store forgets the `in` fact after that step (ScienceWorld has
    no frame rule for `in`); so must w: a plan stating the apple is in the
    kitchen is not committed on the stale fact (it is queried, and the look
    does not show it)."""
    r, model = run(monkeypatch, [[{"actions": ["wait"]}],
                                 [{"actions": ["focus on apple"],
                                   "preconditions": [APPLE_HERE]}]])
    assert r.plan[0] == "wait"
    assert "focus on apple" not in r.plan
    second = verifies(r)[1]
    assert "in(apple, kitchen)" in second.verdict and not second.data["committed"]
    # the query looked: the apple is not listed any more
    assert r.plan[1:2] == ["look around"]


def test_w_forgets_what_no_frame_rule_keeps_and_keeps_the_rest(sw):
    model, book = sw
    w = GroundedStore(book)
    w.ground([Fact("at", ("agent", "kitchen")), Fact("in", ("apple", "kitchen")),
              Fact("open", ("fridge", "kitchen"), False)], "observation", 0)
    w.ground([], "execution", 1, ticked=True)
    assert w.value(("in", ("apple", "kitchen"))) is None
    assert w.value(("at", ("agent", "kitchen"))) is True
    assert w.value(("open", ("fridge", "kitchen"))) is False


def test_apply_does_not_carry_an_in_fact_past_a_step(sw):
    """Apply(h, w) obeys the frame rules too: "put down" needs the thing in the
    inventory; known now, it is not known after another step, and no query now
    could tell (V: unknown for good, and nothing to query before it)."""
    model, book = sw
    w = GroundedStore(book)
    w.ground([Fact("at", ("agent", "kitchen")), Fact("in", ("apple", "inventory"))],
              "observation", 0)
    now, later = build([read_plan({"actions": ["put down apple"]}, model.predicates),
                        read_plan({"actions": ["wait", "put down apple"]}, model.predicates)],
                       w, book, model)
    v_now = verify(now, w.state, book, model.actions, None)
    v_later = verify(later, w.state, book, model.actions, None)
    assert not any(f.kind is FindingKind.UNGROUNDED for f in v_now.findings)
    assert any(f.kind is FindingKind.UNCHECKABLE and f.step == 2 and "inventory" in f.subject
               for f in v_later.findings)
    assert v_later.verdict is Verdict.UNKNOWN and v_later.uncheckable
    assert ("in", ("apple", "inventory")) not in later.pre  # not regressed to now


def test_v_is_a_three_valued_judgement(sw):
    model, book = sw
    w = GroundedStore(book)
    w.ground([Fact("at", ("agent", "kitchen")), Fact("open", ("fridge", "kitchen"), False),
              Fact("open", ("door to hallway", "kitchen"), True)], "observation", 0)
    goal = model.goal_for(lab.TASK)
    plans = [{"actions": ["go to hallway"]}, {"actions": ["focus on table"]},
             {"actions": ["focus on apple"], "preconditions": [APPLE_HERE]}]
    hs = build([read_plan(p, model.predicates) for p in plans], w, book, model)
    go, wrong, stated = (verify(h, w.state, book, model.actions, goal) for h in hs)
    for v in (go, wrong, stated):
        assert isinstance(v, Judgement)
    # nothing contradicts "go to hallway", but the goal cannot be told: unknown, for good
    assert go.verdict is Verdict.UNKNOWN and go.uncheckable and go.scope is Scope.UNCHECKED
    # focusing on a thing the task does not name fails the task: invalid
    assert wrong.verdict is Verdict.INVALID and wrong.scope is Scope.PLAN_ON_GROUNDED_FACTS
    assert any(f.kind is FindingKind.GOAL for f in wrong.findings)
    # a precondition no grounded fact decides: unknown, and a query could settle it
    assert stated.verdict is Verdict.UNKNOWN and not stated.uncheckable
    assert stated.missing == (("in", ("apple", "kitchen")),)


def test_a_scienceworld_commit_v_could_not_check_is_counted_apart(monkeypatch):
    r, _ = run(monkeypatch, [[{"actions": ["wait"]}]])
    m = r.metrics
    assert m["commits"] == 1 and m["grounded_commits"] == 0 and m["unchecked_commits"] == 1
    first = verifies(r)[0]
    assert first.data["committed"] and first.data["commit_scope"] == Scope.UNCHECKED.value
    assert first.data["verdict"]["verdict"] == "unknown"
    # the episode's own verdict is still the simulator's, and it was not won
    assert r.scope is Scope.ENV_EPISODE and not r.verified


def test_with_unchecked_commits_off_v_must_say_valid(monkeypatch):
    r, _ = run(monkeypatch, [[{"actions": ["wait"]}]], unchecked_commits=False)
    assert r.metrics["commits"] == 0 and r.plan == []


def test_a_wrong_focus_is_refuted_by_the_goal_form(monkeypatch):
    """The task says to focus on the apple; focusing on the table ends a
    ScienceWorld task as failed. V refutes the plan; it is never carried out."""
    r, model = run(monkeypatch, [[{"actions": ["focus on table"]}]])
    assert "focus on table" not in r.plan and r.metrics["commits"] == 0
    assert "does not reach the goal" in verifies(r)[0].verdict
    assert "does not reach the goal" in model.prompts["plans"][1]


def test_a_move_into_a_container_seen_closed_is_refuted(monkeypatch):
    """"That can't be moved there, because the fridge isn't open.": moving into a
    container needs it open; the fridge was seen closed, so the plan goes."""
    r, _ = run(monkeypatch, [[{"actions": ["move apple to fridge"]}]])
    assert "move apple to fridge" not in r.plan and r.metrics["commits"] == 0
    dropped = json.dumps(verifies(r)[0].data["dropped"])
    assert "open(fridge, kitchen)" in dropped


def test_the_scienceworld_goal_form_refutes_only_a_focus_it_can_tell_is_wrong():
    from veriplan.methods.aec.domain import FactState
    from veriplan.methods.aec.envmodels import scienceworld_goal

    boil = scienceworld_goal("Your task is to boil lead. For compounds without a boiling "
                             "point, combusting the substance is also acceptable. First, focus "
                             "on the substance. Then, take actions that will cause it to change "
                             "its state of matter.")
    assert boil.targets == ("lead",) and boil.named

    def focus(thing):
        return FactState([Fact("focus", (thing,))])

    assert boil.check(focus("table")) is False
    assert boil.check(focus("lead")) is None  # never valid: the state change is not modelled
    # a gold path's own phrase: it may name the lead
    assert boil.check(focus("substance in inventory")) is None
    find = scienceworld_goal("Your task is to find a(n) animal. First, focus on the thing. "
                             "Then, move it to the orange box in the living room.")
    assert not find.named and find.check(focus("table")) is None


def test_a_scienceworld_command_the_model_does_not_read_is_not_a_refutation(sw):
    """ScienceWorld takes commands the action model has no form for (the number
    that answers an ambiguous request, as its gold paths do): V cannot tell,
    which is unknown, not invalid; in the household games, whose grammar the
    model covers, such a command is refused: invalid."""
    model, book = sw
    w = GroundedStore(book)
    w.ground([Fact("at", ("agent", "kitchen"))], "observation", 0)
    (h,) = build([read_plan({"actions": ["look at stove", "0", "wait"]}, model.predicates)],
                 w, book, model)
    v = verify(h, w.state, book, model.actions, None)
    assert v.verdict is Verdict.UNKNOWN and v.uncheckable
    household = env_model("household")
    hb = RuleBook(household.rules, persistent=household.persistent)
    hw = GroundedStore(hb)
    (j,) = build([read_plan({"actions": ["juggle apple 1"]}, household.predicates)], hw, hb,
                 household)
    assert verify(j, hw.state, hb, household.actions, None).verdict is Verdict.INVALID
