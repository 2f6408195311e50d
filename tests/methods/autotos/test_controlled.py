"""The controlled function writer (issue 48): its settings, its reading of the
feedback, its determinism, and its bugs found (or missed) by the real AutoToS
loop, with its code run in the real sandbox."""

from __future__ import annotations

import pytest

from veriplan.domains.autotos import get_domain
from veriplan.errors import BackendError, ConfigError
from veriplan.llm import LLM
from veriplan.llm.registry import create_backend
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.autotos import Config, run_loop
from veriplan.methods.autotos.controlled import (
    FIGURE4,
    RECORDED,
    Bug,
    ControlledAutoToSBackend,
    Settings,
    reported,
)
from veriplan.methods.autotos.method import feedback

DOMAIN = get_domain("24game")


@pytest.fixture(scope="module")
def data(data_dir):
    return DOMAIN.load(data_dir)


def loop(data, model: str, seed: int = 0, **config):
    backend = create_backend("controlled-autotos", model=model)
    cfg = Config(eval_limit=config.pop("eval_limit", 30), evaluate_progress=False, seed=seed,
                 **config)
    return run_loop(DOMAIN, data, LLM(backend), cfg), backend


def test_settings():
    s = Settings.parse("autotos:e=0.3,q=0.5,r=0,seed=4")
    assert all(s.rates[b] == 0.3 for b in FIGURE4) and s.rates[Bug.SLOW] == 0.0
    assert set(s.q.values()) == {0.5} and (s.r, s.seed) == (0.0, 4)
    assert Settings.parse("autotos").rates == RECORDED
    named = Settings.parse("autotos:e=0.1,goal=1")  # a class named wins over e
    assert named.rates[Bug.GOAL] == 1.0 and named.rates[Bug.UNSOUND] == 0.1
    for bad in ("gpt:e=0.1", "autotos:e=2", "autotos:x=0.1", "autotos:e", "autotos:q=a"):
        with pytest.raises(ConfigError):
            Settings.parse(bad)


def test_it_reads_the_category_of_every_feedback_text():
    state = [1, 1, 4, 6]
    cases = {
        "goal_soundness": ({"state": [24, 1], "expected": False}, Bug.GOAL),
        "input_changed": ({"before": state, "after": [6]}, Bug.SHALLOW),
        "succ_soundness": ({"state": state, "successor": [6, 5], "check": "partial"},
                           Bug.UNSOUND),
        "succ_completeness": ({"state": state, "missing": [[1, 4, 7]]}, Bug.INCOMPLETE),
        "succ_exception": ({"state": state}, Bug.EXCEPTION),
        "succ_too_slow": ({"state": state}, Bug.SLOW),
        "search_timeout": ({}, Bug.SLOW),
    }
    for category, (evidence, bug) in cases.items():
        text = feedback({"category": category, "message": "m", "evidence": evidence}, DOMAIN)
        assert reported(text) == bug, category
    assert reported(feedback({"category": "parse_error", "message": "no code",
                              "evidence": {}}, DOMAIN)) is None


def test_answers_are_seeded_and_replayed_from_the_conversation():
    first = Message("user", DOMAIN.prompt("succ"))
    system = Message("system", "s")
    backend = ControlledAutoToSBackend("autotos:e=0.5")
    answers = {backend.answer("", LLMRequest((system, first), seed=s)) for s in range(8)}
    assert len(answers) > 1  # repeats (request seeds) differ
    again = ControlledAutoToSBackend("autotos:e=0.5")
    assert backend.answer("", LLMRequest((system, first), seed=3)) == \
        again.answer("", LLMRequest((system, first), seed=3))
    with pytest.raises(BackendError):
        backend.answer("", LLMRequest((system, Message("user", "Write a poem.")), seed=0))


def test_no_errors_two_calls(data):
    rec, _ = loop(data, "autotos:e=0")
    assert rec.status == "passed" and rec.calls == {"succ": 1, "goal": 1}
    assert rec.categories == {} and rec.accuracy["final"]["accuracy"] == 1.0


@pytest.mark.parametrize(("bug", "category"), [
    ("shallow", "input_changed"), ("unsound", "succ_soundness"),
    ("exception", "succ_exception"), ("incomplete", "succ_completeness")])
def test_each_bug_is_found_by_the_loop_and_fixed(data, bug, category):
    rec, _ = loop(data, f"autotos:e=0,{bug}=1,q=1,r=0")
    assert rec.categories == {category: 1} and rec.status == "passed"
    assert rec.calls == {"succ": 2, "goal": 1}


def test_a_wrong_goal_test_goes_to_the_goal_conversation(data):
    rec, _ = loop(data, "autotos:e=0,goal=1,q=1,r=0")
    assert rec.categories == {"goal_soundness": 1} and rec.calls == {"succ": 1, "goal": 2}


def test_without_the_partial_check_the_unsound_successors_stay(data):
    """The 24 Game's duplicate blooper: caught by the partial check (w/ val);
    w/o val nothing catches it and the validation finds invalid solutions."""
    rec, _ = loop(data, "autotos:e=0,unsound=1,q=1,r=0", partial_check=False)
    assert rec.status == "passed" and rec.categories == {}
    final = rec.accuracy["final"]
    assert final["accuracy"] < 1.0 and final["categories"].get("invalid_solution", 0) > 0


def test_an_unfixed_bug_spends_the_budget(data):
    rec, _ = loop(data, "autotos:e=0,shallow=1,q=0,r=0", max_calls_per_function=3)
    assert rec.status == "budget_exhausted" and rec.categories == {"input_changed": 3}
