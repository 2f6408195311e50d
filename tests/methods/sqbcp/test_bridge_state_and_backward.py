"""SQ-BCP on a small hidden-fact Blocksworld, with a scripted model and an
oracle that knows the true initial state: the state a step is labelled at
once a bridge is composed in (D2), the backward side's closed set of
need-sets and its deletes (D4), and successful bridges kept out of the
drops (D7)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from tests.helpers import BLOCKS_DOMAIN
from tests.methods.sqbcp.test_sqbcp import Model, hyp, run
from veriplan.domains.hidden import Answer
from veriplan.domains.hidden.pddl_hidden import action_lines
from veriplan.llm import LLM, ScriptedBackend
from veriplan.methods.result import Run
from veriplan.methods.sqbcp import Config, Request, solve
from veriplan.methods.sqbcp.hypothesis import Hypothesis
from veriplan.methods.sqbcp.method import _Search, make_distance
from veriplan.methods.sqbcp.world import SAT, Effects
from veriplan.pddl.parser import parse_domain, parse_problem
from veriplan.pddl.task import Task

BRIDGE = "needs this, which is not known to hold: "


class TrueState:
    """Answers "Is (atom) true in the initial state?" from the true state
    (closed world) and keeps every question."""

    def __init__(self, true: str) -> None:
        self.true = set(re.findall(r"\([^()]*\)", true))
        self.questions: list[str] = []
        self.calls = 0

    def ask(self, question: str) -> Answer:
        self.questions.append(question)
        self.calls += 1
        (atom,) = re.findall(r"\([^()]*\)", question)
        return Answer("yes", f"Yes: {atom}.") if atom in self.true else \
            Answer("no", f"No: {atom} does not hold.")


def request(stated: str, true: str, goal: str, objects: str = "a b c") -> Request:
    """The task as the planner sees it: only ``stated`` in the initial state."""
    domain = parse_domain(BLOCKS_DOMAIN)
    problem = parse_problem(f"""(define (problem p) (:domain bw) (:objects {objects})
      (:init {stated}) (:goal (and {goal})))""", domain)
    facts = {a: True for a in re.findall(r"\([^()]*\)", stated)}
    return Request(f"reach a state where {goal}", facts, TrueState(true), (), None, None,
                   Task(domain, problem), None, action_lines(domain))


def step(action: str) -> dict:
    return {"action": action, "preconditions": [], "effects": {}}


def scripted(forward: dict[str, list[str]], bridges: dict[str, str],
             backward: list[str] | None = None):
    """Forward: the steps to propose after the steps done so far (by the last
    one, "" at the start); bridges: a step per needed fact; backward: the same
    reply every time."""
    def answer(request) -> str:
        prompt = request.messages[-1].content
        if BRIDGE in prompt:
            need = prompt.split(BRIDGE)[1].split(" (about")[0]
            return json.dumps({"hypotheses": [step(bridges[need])] if need in bridges
                               else []})
        if "Working backwards" in prompt:
            return json.dumps({"hypotheses": [step(a) for a in backward or []]})
        done = re.findall(r"^\d+\. (\(.*\))$", prompt, re.M)
        return json.dumps({"hypotheses": [step(a) for a in
                                          forward.get(done[-1] if done else "", [])]})
    return answer


def hypotheses(result, role: str) -> list[dict]:
    return [h for e in result.transcript if e.role == role
            for h in (e.data or {}).get("hypotheses", [])]


# ----- D2: a step is labelled at the state after its bridge ---------------------------
def test_a_fact_the_bridge_deletes_is_violated_and_never_asked_about():
    """(pick-up c) needs (clear c); the bridge (unstack b c) makes it hold but
    takes the hand: the step's (handempty) is VIOL after the bridge (it was
    answered yes about the initial state, for the bridge's own precondition),
    and the chain is not inserted."""
    true = "(on b c) (clear b) (ontable c) (handempty) (ontable a) (clear a)"
    req = request("(ontable a) (clear a) (ontable c)", true, "(on c a)")
    model = scripted({"": ["(pick-up c)"]}, {"(clear c)": "(unstack b c)"})
    r = solve(req, LLM(ScriptedBackend(fn=model)),
              Config(k=0, embeddings="lexical", bidirectional=False, t_max=2))
    assert not r.verified
    (pick,) = [h for h in hypotheses(r, "forward") if h["action"] == "(pick-up c)"]
    assert pick["steps"] == ["(unstack b c)", "(pick-up c)"]
    assert pick["end"] == "violated after a bridge: (handempty)"
    step_pre = pick["pre"][-3:]  # the step's own, after the bridge's
    assert {p["text"]: (p["label"], p["how"]) for p in step_pre}["(handempty)"] \
        == ("VIOL", "known")
    assert not [h for h in hypotheses(r, "forward") if h["end"] == "inserted"]
    # (handempty) is asked about once, for the bridge (at the state before it); the
    # step's (handempty) is not put to the oracle again, nor answered by reuse.
    about = [e for e in r.transcript if e.role == "query" and "(handempty)" in e.prompt]
    assert len(about) == 1 and r.metrics["reused_answers"] == 0
    assert req.oracle.questions.count("Is (handempty) true in the initial state?") == 1


def test_a_fact_the_bridge_sets_is_satisfied_by_its_effects_not_asked():
    """(put-down c) bridges (clear c) for (pick-up c) and also sets (ontable c)
    and (handempty): those hold from its effects; the only question is the
    bridge's own (holding c). The plan is accepted (a roundabout one: the
    point is where the step's preconditions come from)."""
    true = "(holding c) (ontable a) (clear a) (ontable b) (clear b)"
    req = request("(ontable a) (clear a) (ontable b) (clear b)", true, "(on c a)")
    model = scripted({"": ["(pick-up c)"], "(pick-up c)": ["(stack c a)"]},
                     {"(clear c)": "(put-down c)"})
    r = solve(req, LLM(ScriptedBackend(fn=model)),
              Config(k=0, embeddings="lexical", bidirectional=False, t_max=4))
    assert r.metrics["accepted"], r.last_diagnosis
    assert r.plan == ["(put-down c)", "(pick-up c)", "(stack c a)"]
    # asked: the bridge's own (holding c); none of the step's preconditions (the goal
    # atom is asked where the graphs meet)
    assert req.oracle.questions[0] == "Is (holding c) true in the initial state?"
    assert not [q for q in req.oracle.questions
                if any(a in q for a in ("(clear c)", "(ontable c)", "(handempty)"))]
    (pick,) = [h for h in hypotheses(r, "forward") if h["action"] == "(pick-up c)"]
    assert pick["end"] == "inserted"
    assert all(p["label"] == SAT for p in pick["pre"])
    # the composition score: min(s1, s2)(1 - epsilon), at most the step's own
    assert 0 < pick["score"] < 1


def test_verify_checks_each_part_at_its_own_state():
    """A chain of a bridge then its step, replayed part by part: the step's
    (handempty), resolved by an answer about the initial state, is false after
    the bridge, so verification stops at step 2 (before the validator)."""
    true = "(on b c) (clear b) (ontable c) (handempty) (ontable a) (clear a)"
    req = request("(ontable a) (clear a) (ontable c)", true, "(on c a)")
    config = Config(k=0, embeddings="lexical", bidirectional=False)
    distance, _ = make_distance(config)
    search = _Search(req, Run("sqbcp", LLM(ScriptedBackend(fn=lambda r: "{}"))), config,
                     lambda event: None, distance)
    search.learned.update({"(on b c)": True, "(clear b)": True, "(handempty)": True})

    def answered(action: str) -> Hypothesis:  # every precondition resolved by a "yes"
        h = search.g.hypothesis(Hypothesis(action, (), Effects()))
        return replace(h, pre=tuple(replace(p, label=SAT, how="query") for p in h.pre))

    ok, why, _ = search.verify((answered("(unstack b c)"), answered("(pick-up c)")))
    assert not ok
    assert why == ["step 2 ((pick-up c)): (handempty) is VIOL"]


# ----- D4: the backward side's closed set and deletes ---------------------------------
def test_a_backward_cycle_is_expanded_once():
    """(stack a b) regresses (on a b) to {(holding a), (clear b)}; (unstack a b)
    regresses that to {(on a b), (clear a), (handempty)}; (stack a b) again
    would give {(holding a), (clear b)}, seen before: skipped, and the
    frontier empties instead of cycling to T_max."""
    true = "(ontable a) (ontable b) (clear a) (clear b) (handempty)"
    req = request("(ontable a) (ontable b)", true, "(on a b)", "a b")
    model = scripted({}, {}, ["(stack a b)", "(unstack a b)"])
    r = solve(req, LLM(ScriptedBackend(fn=model)),
              Config(k=0, embeddings="lexical", bidirectional=True, t_max=12))
    inserted = [h["action"] for h in hypotheses(r, "backward") if h["end"] == "inserted"]
    assert inserted == ["(stack a b)", "(unstack a b)"]
    assert r.metrics["dropped"]["backward need-set seen before"] == 1
    assert r.metrics["stop"].startswith("frontier empty")
    assert r.metrics["expansions"] == 4  # the forward root and three need-sets


def test_a_backward_step_deleting_a_required_fact_is_dropped_and_a_repeat_inserts_once():
    """Goal (clear a) and (clear c): (stack a c) makes (clear a) hold but
    deletes (clear c), still required: dropped. (put-down a) twice in one
    reply is inserted once."""
    true = "(holding a) (ontable b) (clear b) (ontable c) (clear c)"
    req = request("(ontable b)", true, "(clear a) (clear c)")
    model = scripted({}, {}, ["(stack a c)", "(put-down a)", "(put-down a)"])
    r = solve(req, LLM(ScriptedBackend(fn=model)),
              Config(k=0, embeddings="lexical", bidirectional=True, t_max=2))
    ends = [(h["action"], h["end"]) for h in hypotheses(r, "backward")]
    assert ends[:3] == [("(stack a c)", "backward deletes a required fact: (clear c)"),
                        ("(put-down a)", "inserted"),
                        ("(put-down a)", "backward need-set seen before")]


# ----- D7: a successful bridge is no drop ---------------------------------------------
def test_a_successful_bridge_is_counted_apart_from_the_drops():
    def bridge(prompt):
        return hyp("Stir the flour with water into a batter", [("you have flour", "flour")],
                   made={"batter": 1, "flour": -1}, facts=["batter is ready"],
                   structure="batter mixed")

    fry = hyp("Fry the batter in a frying pan", [("batter is ready", "batter")],
              made={"pancakes": 1, "batter": -1}, goal=True, structure="pancakes are made")
    r = run(Model([[fry]], bridge=bridge))
    assert r.metrics["accepted"], r.last_diagnosis
    assert "bridge" not in r.metrics["dropped"]
    assert r.metrics["bridges"] == 1 and r.metrics["bridges_established"] == 1
    ends = [h["end"] for h in hypotheses(r, "bridge")]
    assert ends == ["bridge: establishes batter is ready"]  # still in the transcript

