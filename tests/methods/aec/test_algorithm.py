"""Every branch of Algorithm 1, on the controller itself (no environment, no
model): selection, ambiguous and uncertain queries, confident simulation,
the three stopping conditions, and commitment by V."""

from __future__ import annotations

from tests.methods.aec import kitchen
from tests.methods.aec.helpers import CABINET, COUNTER, FRIDGE, Stub, controller, three_plans
from veriplan.core.verdict import Scope
from veriplan.envs.base import Fact
from veriplan.methods.aec.controller import QUERY_AMBIGUOUS, QUERY_UNCERTAIN, SIMULATE, Policy


def actions(h):
    return list(h.actions)


def test_pre_h_is_completed_from_the_action_model():
    ctl = controller([kitchen.plan("fridge 1")])
    (h,) = ctl.H
    # "take apple 1 from fridge 1" needs the apple there; "open" needs nothing real
    # (its "not already open" is a guard) and every other need comes from earlier steps
    assert h.pre == {FRIDGE: True}


def test_selection_takes_the_predicate_that_splits_h_most_evenly():
    ctl = controller(three_plans())
    u = ctl.unresolved()
    assert u[FRIDGE] == [1, 2] and u[CABINET] == [1, 0] and u[COUNTER] == [1, 0]
    assert ctl.select(u) == FRIDGE


def test_ambiguous_prediction_is_queried_and_h_pruned_by_the_grounded_value():
    ctl = controller(three_plans(), truth={FRIDGE: True}, table={FRIDGE: (0.55, 0.0)})
    d = ctl.decide(FRIDGE)
    assert d.kind == QUERY_AMBIGUOUS and d.value is True and ctl.q_budget == 7
    assert ctl.w.value(FRIDGE) is True and FRIDGE not in ctl.beliefs
    assert [h.actions[0] for h in ctl.H] == ["go to fridge 1"]


def test_uncertain_prediction_is_queried():
    ctl = controller(three_plans(), truth={FRIDGE: False}, table={FRIDGE: (0.9, 0.6)})
    d = ctl.decide(FRIDGE)
    assert d.kind == QUERY_UNCERTAIN and d.value is False
    assert ctl.w.value(FRIDGE) is False
    assert sorted(h.actions[0] for h in ctl.H) == ["go to cabinet 1", "go to countertop 1"]


def test_confident_prediction_is_simulated_into_beliefs_and_prunes_h_without_grounding():
    ctl = controller(three_plans(), table={FRIDGE: (0.95, 0.05)})
    d = ctl.decide(FRIDGE)
    assert d.kind == SIMULATE and d.value is True and ctl.asked == []
    assert ctl.beliefs.entries[FRIDGE] == (True, 0.05) and ctl.w.value(FRIDGE) is None
    assert [h.actions[0] for h in ctl.H] == ["go to fridge 1"]
    assert ctl.q_budget == 8  # simulation spends no query


def test_simulated_predicates_leave_u():
    ctl = controller(three_plans(), table={FRIDGE: (0.05, 0.05)})
    ctl.decide(FRIDGE)  # believed false: the fridge plan goes
    assert FRIDGE not in ctl.unresolved()
    assert set(ctl.unresolved()) == {CABINET, COUNTER}


def test_the_loop_stops_when_u_is_empty():
    ctl = controller(three_plans(), truth={FRIDGE: True}, table={FRIDGE: (0.5, 0.0)})
    assert ctl.run() == "U is empty"
    assert [d.kind for d in ctl.round.decisions] == [QUERY_AMBIGUOUS]


def test_the_loop_stops_when_the_query_budget_is_spent():
    plans = [kitchen.plan("fridge 1"), kitchen.plan("cabinet 1")]  # independent unknowns
    ctl = controller(plans, truth={FRIDGE: False, CABINET: True}, max_queries=1,
                     table={FRIDGE: (0.9, 0.9), CABINET: (0.9, 0.9)})
    assert ctl.run() == "query budget spent"
    assert ctl.asked == [FRIDGE] and ctl.q_budget == 0 and CABINET in ctl.unresolved()


def test_the_loop_stops_when_h_is_emptied_and_nothing_is_committed():
    plans = [kitchen.plan("fridge 1"), kitchen.plan("fridge 1", score=0.9, skip_heat=True)]
    ctl = controller(plans, table={FRIDGE: (0.02, 0.01)})  # confidently not in the fridge
    assert ctl.run() == "H is empty"
    h, verdict = ctl.commit()
    assert h is None and not verdict.ok and "H is empty" in verdict.reason


def test_the_verifier_rejects_the_best_hypothesis_when_it_misses_the_goal():
    plans = [kitchen.plan("fridge 1", score=0.9, skip_heat=True), kitchen.plan("fridge 1")]
    ctl = controller(plans, truth={FRIDGE: True}, table={FRIDGE: (0.5, 0.0)})
    ctl.run()
    h, verdict = ctl.commit()
    assert "heat apple 1 with microwave 1" not in h.actions  # argmax SCORE, as written
    assert not verdict.ok and verdict.check_pre is True and verdict.pullback is False
    assert "does not reach the goal" in verdict.reason


def test_the_verifier_accepts_a_grounded_plan_that_reaches_the_goal():
    ctl = controller(three_plans(), truth={FRIDGE: True}, table={FRIDGE: (0.5, 0.0)})
    ctl.run()
    h, verdict = ctl.commit()
    assert verdict.ok and verdict.check_pre and verdict.pullback
    assert actions(h)[:3] == ["go to fridge 1", "open fridge 1", "take apple 1 from fridge 1"]


def test_commit_grounds_what_h_star_only_believes_before_v():
    ctl = controller(three_plans(), truth={FRIDGE: True}, table={FRIDGE: (0.97, 0.01)})
    assert ctl.run() == "U is empty" and ctl.asked == []
    h, verdict = ctl.commit()
    assert ctl.asked == [FRIDGE] and verdict.ok
    assert [d.phase for d in ctl.round.decisions] == ["loop", "commit"]


def test_commit_grounding_that_refutes_a_belief_empties_h_instead_of_committing():
    plans = [kitchen.plan("fridge 1")]
    ctl = controller(plans, truth={FRIDGE: False}, table={FRIDGE: (0.97, 0.01)})
    ctl.run()
    h, verdict = ctl.commit()
    assert h is None and not verdict.ok and ctl.asked == [FRIDGE]


def test_evidence_override_discards_hypotheses_that_side_facts_contradict():
    # the query of the fridge also shows the mug is not there; a plan relying on it goes
    mug = [("in", ("mug 1", "fridge 1"), True)]
    plans = three_plans() + [kitchen.plan("fridge 1", score=0.95, stated=mug)]
    ctl = controller(plans, truth={FRIDGE: True}, table={FRIDGE: (0.5, 0.0)},
                     side=[Fact("in", ("mug 1", "fridge 1"), False)])
    ctl.run()
    assert ctl.round.discarded == 1
    assert all(("in", ("mug 1", "fridge 1")) not in h.pre for h in ctl.H)


def test_an_entailed_predicate_is_resolved_and_contradicting_hypotheses_go():
    ctl = controller(three_plans(), table={})
    ctl.w.ground([Fact("in", ("apple 1", "countertop 1"))], "observation", 0)
    # in_one_place: the apple is on the countertop, so not in the fridge or cabinet
    assert ctl.w.known(FRIDGE) == (False, "in_one_place")
    assert ctl.run() == "U is empty" and ctl.asked == []
    assert [h.actions[0] for h in ctl.H] == ["go to countertop 1"]


def test_a_query_the_environment_cannot_answer_is_not_asked_again():
    ctl = controller([kitchen.plan("fridge 1")], truth={}, table={FRIDGE: (0.5, 0.0)})
    assert ctl.run() == "U is empty"
    assert ctl.asked == [FRIDGE] and FRIDGE in ctl.unanswerable
    h, verdict = ctl.commit()
    assert not verdict.ok and "neither grounded nor entailed" in verdict.reason


def test_gating_off_simulates_even_an_ambiguous_prediction():
    ctl = controller(three_plans(), table={FRIDGE: (0.5, 0.0)}, policy=Policy(gating="simulate"))
    d = ctl.decide(FRIDGE)
    assert d.kind == SIMULATE and d.value is True and ctl.asked == []


def test_query_only_asks_no_prediction_and_grounds_every_unresolved_predicate():
    stub = Stub()
    ctl = controller(three_plans(), truth={FRIDGE: False, CABINET: True, COUNTER: False},
                     policy=Policy(gating="query"), predictor=stub)
    ctl.run()
    assert stub.calls == [] and set(ctl.asked) == {FRIDGE, CABINET}  # COUNTER: entailed
    assert ctl.w.known(COUNTER)[0] is False


def test_without_verification_the_best_survivor_is_committed_unchecked():
    plans = [kitchen.plan("fridge 1", score=0.9, skip_heat=True)]
    ctl = controller(plans, table={FRIDGE: (0.97, 0.01)}, policy=Policy(verification=False))
    ctl.run()
    h, verdict = ctl.commit()
    # committed, but recorded as checked by nothing grounded (never a grounded commit)
    assert ctl.round.committed and h is not None and ctl.asked == []
    assert not verdict.ok and verdict.scope is Scope.UNCHECKED


def test_every_hypothesis_that_leaves_h_is_recorded_with_its_counterexample():
    # a plan that takes the apple from the countertop without going there: once the
    # agent is seen at the fridge, the rules say it is not at the countertop
    skip = {"actions": ["take apple 1 from countertop 1", "go to microwave 1",
                        "heat apple 1 with microwave 1", "go to table 1",
                        "move apple 1 to table 1"]}
    ctl = controller(three_plans() + [skip], truth={FRIDGE: False},
                     table={FRIDGE: (0.5, 0.0)},
                     side=[Fact("at", ("agent", "fridge 1"))])
    assert ctl.H[3].steps[("at", ("agent", "countertop 1"))] == 0  # step 1 needs it
    ctl.run()
    by = {(d.hypothesis.index, d.by, d.decision) for d in ctl.round.dropped}
    # the fridge plan is pruned by the grounded value (decision 1); then the skip plan
    # by evidence override after the same query (at_one_place: the agent is at the fridge)
    assert by == {(0, "query", 1), (3, "evidence", 1)}
    fridge, skipped = sorted(ctl.round.dropped, key=lambda d: d.hypothesis.index)
    assert fridge.why() == ("step 3 (take apple 1 from fridge 1) needs in(apple 1, fridge 1) "
                            "= true, but in(apple 1, fridge 1) = false was found by a query")
    assert skipped.rule == "at_one_place" and skipped.why() == (
        "step 1 (take apple 1 from countertop 1) needs at(agent, countertop 1) = true, but "
        "at(agent, countertop 1) = false follows from what was observed (rule at_one_place)")
    d = skipped.to_dict()
    assert d["index"] == 3 and d["p"] == "at(agent, countertop 1)" and d["expected"] is True
    assert ctl.round.discarded == 1 and len(ctl.round.counterexamples()) == 2


def test_a_belief_that_prunes_a_hypothesis_is_recorded_but_is_no_counterexample():
    ctl = controller(three_plans(), table={FRIDGE: (0.05, 0.05)})
    ctl.decide(FRIDGE)
    (d,) = ctl.round.dropped
    assert d.by == "simulation" and not d.grounded and "(not observed)" in d.why()
    assert ctl.round.counterexamples() == []


def test_the_ambiguity_margin_gates_mirror_image_vote_shares_alike():
    # 3.5 of 5 votes and 1.5 of 5: |mu - 0.5| is 0.2 on both sides (epsilon 0.2),
    # so neither is ambiguous; floating point alone made 0.7 ambiguous and 0.3 not
    for votes in (3.5, 1.5):
        mu = votes / 5
        ctl = controller(three_plans(), truth={FRIDGE: True}, table={FRIDGE: (mu, 0.05)})
        assert ctl.decide(FRIDGE).kind == SIMULATE, mu
