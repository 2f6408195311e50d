"""The controlled AEC model on ScienceWorld (``--backend controlled-aec`` on a
ScienceWorld prompt): its measured precondition-error, goal-error and
prediction rates match its settings within the binomial interval; the truth
channel picks the world whose task text the prompt holds, and reads the gold
path of the load the episode plays. Most tests use worlds without an engine;
the few that need the engine share one (Java)."""

from __future__ import annotations

import json
import math
import os
import shutil
import threading

import pytest

from veriplan.errors import BackendError, ConfigError
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.aec import controlled_scienceworld as sw
from veriplan.methods.aec.controlled import ControlledAECBackend
from veriplan.methods.aec.controlled_model import Settings
from veriplan.methods.aec.envmodels import scienceworld_describe

GOLD = ["open door to hallway", "go to hallway", "open door to kitchen", "go to kitchen",
        "open door to outside", "go to outside", "look around", "focus on common toad",
        "pick up common toad", "open door to kitchen", "go to kitchen",
        "open door to hallway", "go to hallway", "open door to living room",
        "go to living room", "move common toad in inventory to orange box"]
OUTSIDE = ("wolf", "common toad", "wood", "turtle", "ground", "terminal 1", "fountain", "air",
           "axe", "fire pit", "agent")
TEXT = "Your task is to find a(n) animal. First, focus on the thing. Then, move it to the {} box."
NAMED = "Your task is to find the common toad {}. First, focus on the common toad."
DOORS = [i for i, c in enumerate(GOLD) if c.startswith("open door to ")]


def world(n: int = 0, *, named: bool = False, history=()) -> sw.World:
    text = (NAMED if named else TEXT).format(f"colour {n}")
    return sw.make_world(f"find-animal:{n}", text, GOLD, "art studio",
                         {"outside": OUTSIDE, "art studio": ("table", "agent")},
                         ("common toad",) if named else (), history)


def interval_ok(k: int, n: int, p: float, z: float = 3.3) -> bool:
    return abs(k - n * p) <= z * math.sqrt(n * p * (1 - p)) + 1


def _plans(s: Settings, named: bool, n_worlds: int = 30, rounds: int = 12):
    for n in range(n_worlds):
        m = sw.Model(world(n, named=named), s)
        for r in range(rounds):
            for j in range(5):
                yield m.steps(r, j)


@pytest.mark.parametrize("p", [0.0, 0.3, 0.6])
def test_the_precondition_error_rate_is_p_and_leaves_out_one_door(p):
    plans = list(_plans(Settings(p=p, g=0.3, seed=1), named=True))
    wrong = 0
    for plan in plans:
        missing = [i for i in range(len(GOLD)) if i not in {k for k, _ in plan}]
        assert len(missing) <= 1 and all(i in DOORS for i in missing)
        wrong += bool(missing)
    assert len(plans) == 1800 and interval_ok(wrong, len(plans), p)


@pytest.mark.parametrize("g", [0.0, 0.2, 0.5])
def test_a_named_goals_error_is_a_wrong_focus_at_rate_g(g):
    plans = list(_plans(Settings(p=0.5, g=g, seed=2), named=True))
    focus = [c for plan in plans for i, c in plan if i == 7]
    wrong = [c for c in focus if c != "focus on common toad"]
    assert len(focus) == 1800 and interval_ok(len(wrong), 1800, g)
    # a thing of the room where the focus happens, sharing no word with the target
    allowed = {f"focus on {t}" for t in ("wolf", "wood", "turtle", "ground", "fountain", "axe",
                                         "fire pit")}
    assert set(wrong) <= allowed and (not g or len(set(wrong)) > 3)


@pytest.mark.parametrize("g", [0.2, 0.5])
def test_an_unnamed_goals_error_leaves_out_the_last_step(g):
    plans = list(_plans(Settings(p=0.5, g=g, seed=3), named=False))
    short = sum(all(i != len(GOLD) - 1 for i, _ in plan) for plan in plans)
    assert all(c == GOLD[i] for plan in plans for i, c in plan)  # never a wrong focus
    assert interval_ok(short, len(plans), g)


def test_plans_go_on_from_where_the_history_says_the_agent_is():
    done = [("open door to hallway", "The door is now open."),
            ("go to hallway", "You move to the hallway."),
            ("look around", "This room is called the hallway. In it, you see: ..."),
            # the executor skipped "open door to kitchen" (the door was seen open)
            ("go to kitchen", "You move to the kitchen.")]
    assert world(history=done).progress() == 4
    # a query's look does not pass over a door; a refused command is not a step taken
    assert world(history=[("look around", "This room ...")]).progress() == 0
    assert world(history=[("go to hallway", "The door is not open.")]).progress() == 0
    # a gold step the engine refuses when played is passed (the gold path goes on)
    assert world(history=done + [("open door to outside", "The door is not open.")]
                 ).progress() == 5
    plan = sw.Model(world(history=done), Settings(p=0, g=0)).steps(0, 0)
    assert [c for _, c in plan] == GOLD[4:]
    # a refused focus is tried again (a plant may have grown out of the path's name)
    to_focus = [(c, "ok") for c in GOLD[:7]]
    assert world(history=to_focus + [("focus on common toad", "No known action matches "
                                      "that input.")]).progress() == 7


def test_react_draws_again_when_its_plan_ran_out_before_the_task_was_done():
    s = Settings(p=0, g=1.0, seed=0)  # every plan leaves out the last step
    history = [(c, "ok") for c in GOLD[:-1]]
    turn = sw.Model(world(history=history), s).react()
    assert turn.endswith(f"Action: {GOLD[-1]}")  # one step left: nothing to leave out


def test_react_draws_again_after_a_refused_command():
    s = Settings(p=1.0, g=0, seed=0)
    first = sw.Model(world(), s).react()
    # with p = 1 the plan leaves out a door: at that door the command is its "go to"
    w = world()
    plan = sw.Model(w, s).steps("react", 0, pos=0)
    skipped = next(i for i in DOORS if i not in {k for k, _ in plan})
    assert first == f"Thought: next step.\nAction: {GOLD[0] if skipped else GOLD[1]}"
    history = [(c, "ok") for c in GOLD[:skipped]] + [(GOLD[skipped + 1],
                                                     "The door is not open.")]
    again = sw.Model(world(history=history), s)
    assert again.w.progress() == skipped
    plan2 = again.steps("react", 1, pos=skipped)  # drawn again, from where it failed
    assert plan2 != plan or skipped == DOORS[-1]


def test_the_predictor_reads_doors_and_rooms_from_the_history():
    history = [("open door to hallway", "The door is now open."),
               ("go to hallway", "You move to the hallway.")]
    w = world(history=history)
    assert w.value(("at", ("agent", "hallway"))) is True
    assert w.value(("at", ("agent", "art studio"))) is False
    assert w.value(("open", ("door to art studio", "hallway"))) is True  # both sides
    assert w.value(("open", ("door to kitchen", "hallway"))) is False  # doors start closed
    assert w.value(("in", ("axe", "outside"))) is None  # no engine: not known


@pytest.mark.parametrize("conf,acc", [("calibrated", 0.7), ("calibrated", 0.9), ("over", 0.7)])
def test_predictions_are_right_at_acc(conf, acc):
    s = Settings(acc=acc, conf=conf, seed=4)
    right = n = 0
    rooms = ["hallway", "kitchen", "outside", "living room", "bedroom", "workshop"]
    for k in range(40):
        m = sw.Model(world(k), s)
        for a in rooms:
            for b in rooms:
                key = ("open", (f"door to {a}", b))
                votes = [json.loads(m.vote(key, i))["answer"] == "yes" for i in range(5)]
                assert conf != "over" or len(set(votes)) == 1
                right += (sum(votes) >= 3) is False  # every door is closed
                n += 1
    assert interval_ok(right, n, acc)


def test_questions_are_read_back_from_aecs_scienceworld_wording():
    for key in [("at", ("agent", "kitchen")), ("in", ("axe", "outside")),
                ("in", ("thermometer", "inventory")), ("open", ("door to kitchen", "hallway")),
                ("open", ("freezer", "kitchen"))]:
        q = scienceworld_describe(key)
        for text in (f"Question: does {q} hold right now?",
                     f"predict whether {q} is true at this moment.", f"Statement: {q}.\n"):
            assert sw.read_question(text) == key


def test_the_channel_picks_the_world_whose_text_the_prompt_holds():
    worlds = sw.Worlds()
    a, b = worlds.add(world(1)), worlds.add(world(2))
    assert worlds.find(f"Your task: {a.task}\n...") is a
    assert worlds.find(f"Your task: {b.task}\n...") is b
    assert worlds.find("Your task: put a hot apple in diningtable 1.") is None
    # the same text loaded in two threads (two episodes of one variation): the caller's
    other = sw.make_world("find-animal:1", a.task, GOLD[:3], "art studio")
    t = threading.Thread(target=lambda: setattr(other, "thread", threading.get_ident()))
    t.start()
    t.join()
    worlds.add(other)  # loaded later, in another thread
    assert worlds.find(a.task) is a


def test_the_backend_answers_scienceworld_prompts_without_leaking_the_world():
    worlds = sw.Worlds()
    w = worlds.add(world(5, named=True))
    backend = ControlledAECBackend("aec:p=0.4,g=0.2,acc=0.9,seed=0", games=[], worlds=worlds)
    plans = backend.complete(LLMRequest((Message("user", f"Your task: {w.task}\nPropose up "
                                                 "to 3 different candidate plans"),),
                                        schema={"type": "object"}, schema_name="plans"))
    got = json.loads(plans.text)["plans"]
    assert len(got) == 3 and all(p["preconditions"] == [] for p in got)
    assert w.task_id not in plans.text
    turn = backend.complete(LLMRequest((Message("user", f"Your task: {w.task}\nObservation: "
                                                "..."),)))
    assert turn.text.startswith("Thought:") and "Action: " in turn.text
    assert backend.serial  # the ensemble's requests stay in the episode's thread
    with pytest.raises(ConfigError):
        ControlledAECBackend("aec:g=2", games=[], worlds=worlds)


def test_v_refutes_a_wrong_focus_that_is_not_the_plans_last_step():
    """The goal form's focus outlives the step (the persist-focus frame rule):
    before it, a focus was forgotten at the next step and V missed it."""
    from veriplan.methods.aec.domain import FactState
    from veriplan.methods.aec.envmodels import scienceworld
    from veriplan.methods.aec.repair import RuleBook
    from veriplan.methods.aec.state import Hypothesis
    from veriplan.methods.aec.verifier import verify

    m = scienceworld()
    goal = m.goal_for("Your task is to use chemistry to create violet paint. When you are "
                      "done, focus on the violet paint.")
    rules = RuleBook(m.rules, persistent=m.persistent)
    for acts in (("focus on stopwatch",), ("focus on stopwatch", "wait1", "look around")):
        v = verify(Hypothesis(acts, {}), FactState(), rules, m.actions, goal)
        assert v.verdict.value == "invalid", acts
    ok = verify(Hypothesis(("focus on violet paint", "wait1"), {}), FactState(), rules,
                m.actions, goal)
    assert ok.verdict.value == "unknown"


def test_the_studys_variations_are_unseen_ones():
    from veriplan.bench.datasets import load_dataset
    from veriplan.envs.scienceworld import variations

    ds = load_dataset("scienceworld_unseen_short")
    ids = [i.id for i in ds.instances]
    assert len(ids) == len(set(ids)) == 16
    for i in ids:
        task, _, v = i.rpartition(":")
        assert int(v) in variations(task, "unseen")


# ----- with the engine (one for the module) ---------------------------------------------------
@pytest.fixture(scope="module")
def engine():
    if shutil.which("java") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("Java is missing (the Makefile installs it)")
        pytest.skip("Java is missing")
    from veriplan.envs import make_env

    env = make_env("scienceworld")
    yield env
    env.close()


def test_the_channel_reads_the_load_the_episode_plays(engine):
    worlds = sw.Worlds()
    sw.listen(worlds)
    try:
        engine.reset("find-animal:225")
        text_a = engine.task_description.strip()
        a = worlds.find(f"Your task: {text_a}")
        assert a is not None and a.task_id == "find-animal:225"
        assert list(a.gold) == engine.gold_path("find-animal:225", loaded=True)
        assert a.start_room and a.objects.get(a.start_room)
        for step in a.gold:
            engine.step(step)
        assert engine.won and a.progress() == len(a.gold)
        # the doors the history says are open are the ones the engine shows here
        look = engine._env.look()
        for door in (x for x in ("hallway", "kitchen", "outside", "bedroom", "living room",
                                 "workshop", "art studio", "bathroom", "greenhouse")
                     if f"A door to the {x} (that is" in look):
            shown = f"A door to the {door} (that is open)" in look
            assert a.value(("open", (f"door to {door}", a.room()))) is shown
        assert a.value(("at", ("agent", a.room()))) is True
        # another variation in the same engine: its text picks it, the first is gone
        engine.reset("find-animal:227")
        b = worlds.find(f"Your task: {engine.task_description.strip()}")
        assert b is not None and b.task_id == "find-animal:227" and b.task != text_a
        assert worlds.find(f"Your task: {text_a}") is None
        assert list(b.gold) == engine.gold_path("find-animal:227", loaded=True)
    finally:
        from veriplan.envs import scienceworld

        scienceworld.OBSERVERS.remove(worlds.observe)


class FakeEngine:
    """What the channel touches of a ScienceWorld environment, counting engine calls."""

    def __init__(self, task_id: str, text: str) -> None:
        self._gold_of, self.task_description, self.calls = task_id, text, []

    def gold_path(self, task_id: str, *, loaded: bool = False) -> list[str]:
        self.calls.append(("gold_path", task_id, loaded))
        return list(GOLD)

    def _java(self):
        import contextlib

        return contextlib.nullcontext()

    @property
    def _env(self):
        engine = self

        class Tree:
            def getObjectTree(self):
                engine.calls.append(("tree",))
                return {"contents": {"1": {"name": "outside", "contents": {
                    str(i): {"name": n} for i, n in enumerate(OUTSIDE)}}}}
        return Tree()


def test_a_reset_costs_the_engine_no_call_until_the_world_is_asked_for():
    worlds = sw.Worlds()
    engine = FakeEngine("find-animal:3", TEXT.format("teal"))
    worlds.observe(engine, None, "This room is called the art studio. In it, you see: ...")
    worlds.observe(engine, "open door to hallway", "The door is now open.")
    assert engine.calls == []  # a load the model never serves sees no extra engine call
    w = worlds.find(f"Your task: {engine.task_description}")
    assert w is not None and w.start_room == "art studio" and w.progress() == 1
    assert engine.calls[0] == ("gold_path", "find-animal:3", True)  # that load's path
    assert w.gold == tuple(GOLD) and "common toad" in w.objects["outside"]
    engine._gold_of = "find-animal:4"  # the engine loaded another task since
    other = sw.Worlds()
    other.observe(engine, None, "This room is called the kitchen.")
    engine._gold_of = "boil:1"
    with pytest.raises(BackendError):
        other.find(f"Your task: {engine.task_description}")
