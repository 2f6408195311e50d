"""Hidden-fact PDDL: withheld facts, decoys, the validator as decider, and
prompts that name the domain's actions and every object of the problem."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import BLOCKS_DOMAIN
from veriplan.core.atom import Atom
from veriplan.core.verdict import FindingKind
from veriplan.domains.hidden import Oracle
from veriplan.domains.hidden.pddl_hidden import (
    decoy_facts,
    hidden_task,
    pddl_hidden_tasks,
    reference_plan,
    supporting_facts,
    true_task,
    type_predicates,
)
from veriplan.errors import ConfigError, DataError
from veriplan.planio import PlanBenchConfig

# c on a; a and b on the table; goal: a on b.
PROBLEM = """(define (problem p3) (:domain bw) (:objects a b c)
  (:init (on c a) (ontable a) (ontable b) (clear c) (clear b) (handempty))
  (:goal (on a b)))"""


@pytest.fixture
def small(tmp_path: Path) -> tuple[Path, Path]:
    d, p = tmp_path / "domain.pddl", tmp_path / "p3.pddl"
    d.write_text(BLOCKS_DOMAIN, encoding="utf-8")
    p.write_text(PROBLEM, encoding="utf-8")
    return d, p


def test_supporting_facts_are_read_before_any_step_adds_them(small):
    task = true_task(*map(str, small))
    plan = reference_plan(task)
    assert [str(s) for s in plan] == ["(unstack c a)", "(put-down c)", "(pick-up a)",
                                      "(stack a b)"]
    facts = {str(a) for a in supporting_facts(task, plan)}
    # (clear a) and (handempty) after step 1 are added by the plan itself.
    assert facts == {"(on c a)", "(clear c)", "(handempty)", "(ontable a)", "(clear b)"}


def test_the_task_withholds_them_and_adds_false_decoys(small):
    t = hidden_task(*small)
    withheld = {p.subject for p in t.latent if p.holds}
    assert withheld == {"(on c a)", "(clear c)", "(handempty)", "(ontable a)", "(clear b)"}
    assert not withheld & set(t.known) and set(t.known) == {"(ontable b)"}
    decoys = [p for p in t.latent if not p.holds]
    assert 1 <= len(decoys) <= 2
    init = {str(a) for a in true_task(*map(str, small)).problem.init}
    assert all(p.subject not in init for p in decoys)
    assert t.constraints == ("every action's preconditions must hold",)
    assert t.goal == "reach a state where (on a b). The objects of the task: a, b, c"
    assert t.payload["visible_task"].problem.init == (Atom("ontable", ("b",)),)
    assert hidden_task(*small).latent == t.latent  # deterministic
    assert len([p for p in hidden_task(*small, cap=2).latent if p.holds]) == 2
    with pytest.raises(ConfigError):
        hidden_task(*small, cap=0)


def test_decider_reference_passes_assumptions_of_false_facts_break(small):
    t = hidden_task(*small)
    assert t.decide(list(t.reference)).valid
    # A guesser who assumes a is clear (it is covered by c) picks it up at once.
    v = t.decide(["(pick-up a)", "(stack a b)"])
    assert [(x.step, x.kind, x.subject) for x in v.findings] == [
        (1, FindingKind.PRECONDITION, "(clear a)")]
    assert "true problem" in v.findings[0].detail
    v = t.decide(["(unstack c a)", "(put-down c)"])
    assert [(x.step, x.kind) for x in v.findings] == [(None, FindingKind.GOAL)]
    v = t.decide(["(unstack c a)", "(fly c)", "(put-down c)", "(pick-up a)", "(stack a b)"])
    assert v.findings[0].step == 2


def test_decoys_swap_one_argument_for_an_object_of_the_same_kind(small):
    task = true_task(*map(str, small))
    out = {str(a) for a in decoy_facts(task, [Atom("on", ("c", "a"))])}
    assert out == {"(on b a)", "(on c b)"}


@pytest.fixture(scope="module")
def planbench_tasks(planbench: Path):
    return pddl_hidden_tasks(planbench, domains=("blocksworld",))


def test_at_least_200_tasks_on_planbench_blocksworld(planbench_tasks):
    ts = planbench_tasks
    assert len(ts) >= 200 and ts.skipped == ()
    for t in ts:
        assert 1 <= sum(p.holds for p in t.latent) <= 6
        assert all(p.kind == "fact" and p.subject.startswith("(") for p in t.latent)
        assert t.decide(list(t.reference)).valid, t.id
    assert sum(not p.holds for t in ts for p in t.latent) > len(ts)


def test_a_plan_assuming_a_decoy_breaks(planbench_tasks):
    """For each task with a decoy, an action whose preconditions hold once the
    decoy is assumed (and the visible facts and withheld truths hold) fails
    on the true problem at that step."""
    checked = 0
    for t in list(planbench_tasks)[:60]:
        real = true_task(t.payload["domain"], t.payload["problem"])
        for p in (p for p in t.latent if not p.holds):
            name, *args = p.subject.strip("()").split()
            imagined = real.init | (1 << real.facts.bit(Atom(name, tuple(args))))
            op = next((op for op in real.ground()
                       if op.applicable(imagined) and not op.applicable(real.init)), None)
            if op is None:
                continue
            v = t.decide([str(op)])
            assert not v.valid and v.findings[0].step == 1, (t.id, str(op))
            assert p.subject in v.findings[0].subject, (t.id, str(op))
            checked += 1
    assert checked >= 20


def test_planbench_words_and_questions(planbench_tasks):
    t = next(t for t in planbench_tasks if t.id == "blocksworld/instance-1")
    cfg_words = ["unstack the blue block from on top of the orange block",
                 "stack the blue block on top of the red block", "pick up the orange block",
                 "stack the orange block on top of the blue block"]
    assert [str(s) for s in t.reference] == ["(unstack b c)", "(stack b a)", "(pick-up c)",
                                             "(stack c b)"]
    assert t.decide(cfg_words).valid
    assert t.decide(["dance the blue block"]).findings[0].kind is FindingKind.UNREAD
    o = Oracle(t)
    fact = next(p for p in t.latent if p.holds)
    assert o.ask(f"Is {fact.subject} true?").status == "yes"
    assert o.ask(f"Is it so that {fact.text}?").status == "yes"
    assert o.ask("Is the sky blue?").status == "unknown"


def test_logistics_tasks_never_withhold_types(planbench: Path):
    ts = pddl_hidden_tasks(planbench, domains=("logistics",), limit=8)
    assert len(ts) == 8
    p = ts.tasks[0].payload
    task = true_task(p["domain"], p["problem"])
    types = type_predicates(task, PlanBenchConfig.from_yaml(p["config"]))
    assert set(types) == {"truck", "airplane", "city", "location", "obj"}  # airport: a fact
    for t in ts:
        assert t.decide(list(t.reference)).valid
        assert all(p.subject.split()[0].strip("(") not in types for p in t.latent)
        assert any(a.startswith("(truck") for a in t.known)


def test_missing_planbench_folder(tmp_path):
    with pytest.raises(DataError, match="planbench"):
        pddl_hidden_tasks(tmp_path)


def test_every_method_is_told_the_domain_actions(small):
    """A step must be one of the domain's actions, so the task names them
    (with parameters, precondition and effects) and every method's prompt
    shows them."""
    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.baselines.hidden import Config, cot
    from veriplan.methods.sqbcp import Config as SQ
    from veriplan.methods.sqbcp.method import solve

    t = hidden_task(*small)
    assert [a.split()[0] for a in t.actions] == ["(pick-up", "(put-down", "(stack", "(unstack"]
    assert t.actions[3].startswith("(unstack ?x ?y) requires (and (on ?x ?y)")
    assert "effects: (holding ?x) (clear ?y) (not (on ?x ?y))" in t.actions[3]
    base, sq = ScriptedBackend(["Plan:\n1. (unstack c a)"]), ScriptedBackend(fn=lambda r: "{}")
    cot(t, LLM(base), Config(k=1))
    solve(t, LLM(sq), SQ(k=1, t_max=1))
    for prompt in (base.requests[0].messages[-1].content, sq.requests[0].messages[-1].content):
        assert all(a in prompt for a in t.actions)


def test_a_step_in_pddl_form_is_read_with_a_planbench_config(planbench: Path):
    """Logistics' PlanBench words and PDDL lines both read; a line that is no
    action is "unread", which is not a violation and never verified."""
    from veriplan.domains.hidden.metrics import judge

    t = pddl_hidden_tasks(planbench, domains=("logistics",), limit=1).tasks[0]
    assert t.decide(["1. " + s for s in t.reference]).valid
    j = judge(t, ["(unstack b c)"] + list(t.reference))
    assert j["unread"] == 1 and not j["violated"] and j["violations"]
    wrong = judge(t, [s for s in t.reference if "unload" in s])
    assert wrong["violated"] and not wrong["unread"]


def test_a_revealed_fact_reads_as_the_known_facts_do(small):
    """PDDL facts are shown as atoms in every prompt, revealed ones too, and a
    false one as SQ-BCP's prompt states it."""
    t = hidden_task(*small)
    v = t.variant(len(t.latent))
    shown = v.prompt_facts()[len(t.known):]
    assert [s.removeprefix("not ") for s in shown] == [p.subject for p in v.revealed]
    assert all(s.startswith("not ") != p.holds for s, p in zip(shown, v.revealed))


def test_the_oracle_answers_any_fact_of_the_true_initial_state(small):
    """Beyond the latent facts, the true problem is closed-world: a listed
    fact is yes, any other well-formed one no; what names no single fact of the
    task stays unknown."""
    t = hidden_task(*small)
    o = Oracle(t)
    latent = {p.subject for p in t.latent}
    assert "(ontable b)" not in latent and "(on b c)" not in latent
    assert o.ask("Is (ontable b) true in the initial state?").status == "yes"
    assert o.ask("Is (on b c) true in the initial state?").status == "no"
    for q in ("Is (on b) true?", "Is (on b zz) true?", "Is (fly b c) true?",
              "Are (ontable b) and (on b c) true?", "Is the sky blue?"):
        assert o.ask(q).status == "unknown", q


def _named(obj: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(obj)}(?![\w-])", text) is not None


def test_every_prompt_lists_the_objects(small):
    """Every hidden-fact PDDL prompt names the problem's objects (in 8 of the 50
    committed Blocksworld tasks an object was once named nowhere)."""
    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.baselines.hidden import Config, direct
    from veriplan.methods.sqbcp import Config as SQ
    from veriplan.methods.sqbcp.method import solve

    t = hidden_task(*small)
    assert t.goal.endswith("The objects of the task: a, b, c")
    base, sq = ScriptedBackend(["Plan:\n1. (unstack c a)"]), ScriptedBackend(fn=lambda r: "{}")
    direct(t, LLM(base), Config(k=0))
    solve(t, LLM(sq), SQ(k=0, t_max=1))
    for prompt in (base.requests[0].messages[-1].content, sq.requests[0].messages[-1].content):
        assert "The objects of the task: a, b, c" in prompt


def test_no_planbench_object_is_left_unnamed(planbench: Path):
    """On the first 50 Blocksworld tasks (the committed run's), at k = 0 (the
    fewest facts shown), every object is named in what the prompt shows."""
    tasks = list(pddl_hidden_tasks(planbench, domains=("blocksworld",)))[:50]
    unnamed = []
    for t in tasks:
        shown = " ".join([t.goal, *t.variant(0).prompt_facts()])
        objs = t.payload["closed_world"][2]
        unnamed += [(t.id, o) for o in objs if not _named(o, shown)]
    assert unnamed == []
