"""Household games: generation, TextWorld play, the grounder's soundness,
reproducibility, isolation, query macro-actions."""

from __future__ import annotations

import pytest

from veriplan.envs.base import Fact
from veriplan.envs.check import replay
from veriplan.envs.household import grounder
from veriplan.envs.household.games import counts, game_ids, load_game
from veriplan.envs.household.generator import EVAL_COUNTS, TASK_TYPES, generate
from veriplan.errors import ConfigError, VeriplanError


def test_the_evaluation_set_has_the_shape_of_alfworlds_unseen_split():
    assert counts("eval") == {"pick_and_place": 24, "pick_clean_then_place": 31,
                              "pick_heat_then_place": 23, "pick_cool_then_place": 21,
                              "look_at_obj_in_light": 18, "pick_two_obj_and_place": 17}
    assert len(game_ids("eval")) == 134 == sum(EVAL_COUNTS.values())
    assert not set(game_ids("eval")) & set(game_ids("train"))


def test_generation_is_seeded():
    a = generate("pick_cool_then_place", 7, "x", solve=False)
    b = generate("pick_cool_then_place", 7, "x", solve=False)
    c = generate("pick_cool_then_place", 8, "x", solve=False)
    assert a is not None and a.problem == b.problem and (c is None or c.problem != a.problem)
    assert "(:goal" in a.problem and "iscool" in a.problem.lower()


@pytest.mark.parametrize("text, facts", [
    ("You arrive at fridge 1. The fridge 1 is closed.",
     {Fact("at", ("agent", "fridge 1")), Fact("open", ("fridge 1",), False)}),
    ("You open the fridge 1. The fridge 1 is open. In it, you see a apple 1, and a egg 2.",
     {Fact("open", ("fridge 1",)), Fact("in", ("apple 1", "fridge 1"))}),
    ("You pick up the mug 1 from the countertop 2.",
     {Fact("holds", ("agent", "mug 1")), Fact("in", ("mug 1", "countertop 2"), False)}),
    ("You heat the mug 1 using the microwave 1.", {Fact("hot", ("mug 1",))}),
    ("Nothing happens.", set()),
])
def test_grounder_reads_what_the_text_says(text, facts):
    got = grounder.ground(text)
    assert facts <= got or (not facts and not got)


def test_walkthroughs_are_won_and_the_grounder_is_never_contradicted(textworld_python,
                                                                     games_cache):
    from veriplan.envs import make_env

    with make_env("household") as env:
        for gid in ("eval/pick_heat_then_place/0", "eval/look_at_obj_in_light/0",
                    "eval/pick_two_obj_and_place/1"):
            ep = replay(env, gid)
            assert ep.won and ep.contradicted == [] and ep.facts > 0, ep


def test_same_game_same_actions_same_observations(textworld_python, games_cache):
    from veriplan.envs import make_env

    game = load_game("eval/pick_clean_then_place/0")
    runs = []
    with make_env("household") as env:
        for _ in range(2):
            texts = [env.reset("eval/pick_clean_then_place/0").text]
            for step in game.plan:
                texts.append(env.step(env.command_for(step)).observation.text)
            runs.append(texts)
    assert runs[0] == runs[1] and env.won


def test_parallel_episodes_share_nothing(textworld_python, games_cache):
    from veriplan.envs import make_env

    a, b = make_env("household"), make_env("household")
    try:
        ga, gb = load_game("eval/pick_and_place/0"), load_game("eval/pick_and_place/1")
        a.reset("eval/pick_and_place/0")
        before = b.reset("eval/pick_and_place/1").text
        for step in ga.plan:
            a.step(a.command_for(step))
        assert a.won and not b.won
        assert b.reset("eval/pick_and_place/1").text == before
        for step in gb.plan:
            b.step(b.command_for(step))
        assert b.won
    finally:
        a.close()
        b.close()


def test_query_macro_spends_real_steps(textworld_python, games_cache):
    from veriplan.envs import make_env

    game = load_game("eval/pick_heat_then_place/0")
    obj, receptacle = next((o, r) for o, r in _placements(game.problem))
    with make_env("household", max_steps=50) as env:
        env.reset("eval/pick_heat_then_place/0")
        q = env.query("in", obj, receptacle)
        assert q.value is True and q.steps >= 1 and env.steps == q.steps
        assert Fact("at", ("agent", receptacle)) in q.facts


def _placements(problem: str):
    from veriplan.envs.household.env import display

    for line in problem.splitlines():
        words = line.strip().strip("()").split()
        if words and words[0] == "inReceptacle":
            yield display(words[1]), display(words[2])


def test_a_step_budget_ends_the_episode(textworld_python, games_cache):
    from veriplan.envs import make_env

    with make_env("household", max_steps=2) as env:
        env.reset("eval/pick_and_place/0")
        env.step("look")
        assert env.step("look").done
        assert env.step("look").info.get("budget_exhausted")


def test_unknown_games_and_a_missing_textworld_are_clear_errors(monkeypatch, tmp_path):
    with pytest.raises(ConfigError, match="SPLIT/TASK_TYPE/N"):
        load_game("eval/juggle/0")
    with pytest.raises(ConfigError, match="24 pick_and_place games"):
        load_game("eval/pick_and_place/24")
    from veriplan.envs.household.env import textworld_python

    monkeypatch.setenv("VERIPLAN_TEXTWORLD_PYTHON", str(tmp_path / "none" / "python"))
    with pytest.raises(VeriplanError, match="make textworld"):
        textworld_python()
    assert set(TASK_TYPES) == set(EVAL_COUNTS)
