"""SQ-BCP checks the truth on the natural-language families. Each test drives
the defect it names with a scripted model (or the decider itself) and fails
on the code before the fix (commit 3d9040c)."""

from __future__ import annotations

from tests.methods.sqbcp.test_sqbcp import MIX, Model, hyp, run, task
from veriplan.core.verdict import FindingKind, Judgement, Scope, Verdict
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.baselines.hidden import Config as BaselineConfig
from veriplan.methods.baselines.hidden import direct
from veriplan.methods.sqbcp import Config


def kinds(judgement: Judgement) -> list[FindingKind]:
    return [f.kind for f in judgement.findings]


def verify_entries(r) -> list[str]:
    return [e.verdict for e in r.transcript if e.role == "verify"]


# ----- the goal carries r*: "goal reached" is not the model's word -------------------------
def test_a_one_step_serve_with_no_preconditions_is_not_accepted():
    """"Serve the pancakes": no precondition, completes_goal set, makes
    nothing. The goal requires the dish (r*), which no step makes."""
    serve = hyp("Serve the pancakes", [], goal=True, structure="pancakes are made")
    r = run(Model([[serve]]), Config(k=0, embeddings="lexical", bidirectional=False, t_max=1))
    assert not r.metrics["accepted"] and not r.verified and r.plan == []
    assert verify_entries(r) and all("pancakes" in v for v in verify_entries(r))
    # the true task's decider says the same of the plan (as it does of a baseline's)
    j = task().decide(["Serve the pancakes"])
    assert j.scope is Scope.HIDDEN_TASK and j.verdict is Verdict.INVALID
    assert kinds(j) == [FindingKind.NOT_PRODUCED]


def test_a_dish_declared_made_from_nothing_is_not_accepted():
    """The model may claim the step makes the dish; a step that uses up
    nothing the chain has makes it from nothing grounded: unknown, not
    accepted."""
    serve = hyp("Serve the pancakes", [], made={"pancakes": 1}, goal=True,
                structure="pancakes are made")
    r = run(Model([[serve]]), Config(k=0, embeddings="lexical", bidirectional=False, t_max=1))
    assert not r.metrics["accepted"] and r.plan == []
    (v,) = verify_entries(r)
    assert v.startswith("pullback (unknown)") and "from nothing" in v


def test_a_chain_that_makes_the_dish_from_grounded_resources_is_accepted_and_valid():
    fry = hyp("Fry the batter with the eggs in a frying pan",
              [("batter is ready", "batter"), ("you have eggs", "eggs"),
               ("you have a frying pan", "frying pan")],
              made={"pancakes": 1, "batter": -1}, goal=True, structure="pancakes are made")
    t = task(made_with=("flour", "eggs"))
    r = run(Model([[MIX], [fry]]), t=t)
    assert r.metrics["accepted"] and r.verified, r.last_diagnosis
    assert r.metrics["verdict"] == "valid" and r.metrics["judgement"]["scope"] == "hidden_task"


# ----- pull-back verification reads grounded facts -----------------------------------------
def test_pullback_rejects_a_step_that_uses_an_item_grounded_as_missing():
    """Butter is revealed missing (k = 4); the step's words use it although
    its preconditions never mention it. Before, PULLBACKVERIFY returned no
    finding for any natural-language plan."""
    fry = hyp("Fry the batter in butter", [("batter is ready", "batter")],
              made={"pancakes": 1, "batter": -1}, goal=True, structure="pancakes are made")
    r = run(Model([[MIX], [fry]]), Config(k=4, embeddings="lexical", bidirectional=False))
    assert not r.metrics["accepted"] and r.plan == []
    assert any(v.startswith("pullback (invalid)") and "uses butter" in v
               for v in verify_entries(r)), verify_entries(r)


def test_pullback_rejects_a_step_using_up_what_no_grounded_fact_provides():
    """A resource a step uses up must be there (made earlier, or at hand by a
    stated fact or an answer); "sparkling water" is neither."""
    from veriplan.methods.sqbcp.grounding import NaturalLanguage
    from veriplan.methods.sqbcp.hypothesis import read
    from veriplan.methods.sqbcp.request import request_for

    g = NaturalLanguage(request_for(task(), Config(k=0)))
    step = read(hyp("Whisk flour with sparkling water into pancakes", [],
                    made={"pancakes": 1, "sparkling water": -1}))
    found = g.verify((step,), {}, lambda w: w)
    assert [(f.kind, f.subject) for f in found] == [(FindingKind.UNGROUNDED, "sparkling water"),
                                                    (FindingKind.UNGROUNDED, "pancakes")]


# ----- substitution: every whole-word use, nothing inside other words ------------------------
def test_a_substitution_rewrites_every_use_and_nothing_inside_other_words():
    grease = hyp("Melt the butter, then grease the pan with butter and pour in the buttermilk",
                 [("you have butter", "butter")], made={"pancakes": 1, "buttermilk": -1},
                 goal=True, structure="pancakes are made")
    t = task(known=("you have flour", "you have buttermilk"))
    r = run(Model([[grease]]), Config(k=0, embeddings="lexical", bidirectional=False,
                                      t_bridge=0), t)
    assert r.metrics["accepted"], r.metrics["stop"]
    assert r.plan == ["Melt the margarine, then grease the pan with margarine and pour in the "
                      "buttermilk"]
    assert not any(f["kind"] == "missing_item" for f in r.metrics["judgement"]["findings"])


# ----- the decider: any use of a missing item, whatever else the step names -----------------
def test_the_decider_flags_a_step_that_also_names_the_substitute():
    j = task().decide(["Mix flour and eggs into a batter", "Fry the batter in butter and "
                       "margarine"])
    assert j.verdict is Verdict.INVALID
    assert [(f.kind, f.step, f.subject) for f in j.findings] == [
        (FindingKind.MISSING_ITEM, 2, "butter")]
    ok = task().decide(["Mix flour and eggs into a batter", "Fry the batter in margarine "
                        "(instead of butter)"])
    assert ok.valid, ok


# ----- baselines: judged by the same decider --------------------------------------------------
def test_a_baseline_plan_naming_no_missing_item_is_not_verified_by_that_alone():
    serve = direct(task(), LLM(ScriptedBackend(["Plan:\n1. Serve the pancakes\n"])),
                   BaselineConfig(k=0))
    assert not serve.verified and serve.failure == "wrong"
    assert serve.metrics["verdict"] == "invalid" and serve.metrics["goal_unmet"]
    both = direct(task(), LLM(ScriptedBackend(["Plan:\n1. Mix flour and eggs\n"
                                               "2. Fry in butter and margarine\n"])),
                  BaselineConfig(k=0))
    assert not both.verified and both.failure == "violation" and both.metrics["violated"]


def test_where_no_fact_of_the_task_decides_the_verdict_is_unknown_and_never_verified():
    """The plan never uses eggs, which the task makes pancakes with: nothing
    says the dish is made without them."""
    r = direct(task(), LLM(ScriptedBackend(["Plan:\n1. Stir the flour with water\n"
                                            "2. Fry it in margarine\n"])), BaselineConfig(k=0))
    assert r.metrics["verdict"] == "unknown" and r.metrics["unknown"]
    assert not r.verified and r.failure == "unknown" and not r.metrics["violated"]
    assert [f["subject"] for f in r.metrics["judgement"]["findings"]] == ["eggs"]


# ----- hidden-fact PDDL: a precondition nothing grounded decides is unknown -----------------
def test_the_pddl_pullback_tells_unknown_from_false():
    from tests.methods.sqbcp.test_bridge_state_and_backward import request
    from veriplan.methods.sqbcp.grounding import HiddenPDDL
    from veriplan.methods.sqbcp.hypothesis import Hypothesis
    from veriplan.methods.sqbcp.world import Effects

    def chain(*steps: str) -> tuple[Hypothesis, ...]:
        return tuple(Hypothesis(s, (), Effects(), steps=(s,)) for s in steps)

    req = request("(ontable a) (clear a) (ontable b)", "", "(on a b)", "a b")
    g = HiddenPDDL(req)
    # (handempty) is stated nowhere and was never answered: unknown, not false
    (f,) = g.verify(chain("(pick-up a)", "(stack a b)"), {}, lambda w: w)
    assert (f.kind, f.step, f.subject) == (FindingKind.UNGROUNDED, 1, "(handempty)")
    # answered no: false
    (f,) = g.verify(chain("(pick-up a)", "(stack a b)"), {"(handempty)": False}, lambda w: w)
    assert f.kind is FindingKind.PRECONDITION
    # answered yes, and (clear b) too: valid
    assert g.verify(chain("(pick-up a)", "(stack a b)"),
                    {"(handempty)": True, "(clear b)": True}, lambda w: w) == []
