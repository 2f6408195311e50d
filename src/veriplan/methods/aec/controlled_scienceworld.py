"""The controlled AEC model on ScienceWorld: the planner, predictor and truth
channel that ``--backend controlled-aec`` uses when its prompt is about a
ScienceWorld task (the household part is :mod:`.controlled`; the settings
``aec:p=P,g=G,acc=A,conf=calibrated|over,seed=S``, the draws and the votes are
the same, :mod:`.controlled_model`).

The truth channel (:class:`Worlds`). A ScienceWorld variation's world is not
fixed by its id: the engine draws part of it (which animal is outside, and
the gold path with it) from state its earlier calls left. So the gold path
must be the one of the load the episode plays, as ``veriplan aec check-store``
replays it: ``env.gold_path(task_id, loaded=True)`` right after the reset,
never a load of its own. The channel therefore listens to this process's
ScienceWorld engines (:data:`veriplan.envs.scienceworld.OBSERVERS`) and reads,
from the environment that loaded the task: at the reset, the task id, the
task text and the first observation's room (no engine call); when the
backend is first asked about that episode (before its first step), the
loaded gold path and the engine's object tree (each room's top-level things,
for the goal error); after each step: the command and the observation (the agent's own history,
which the agent has too); and when a prediction is asked: the engine's state
now (``true_facts``: where the agent is, what lies at the top level of each
room and the inventory, which containers are open). A prompt picks its world
by the task text it contains (the text names the variation's substance,
colour, box, ...); several live worlds with that text: the one loaded in the
calling thread (the harness runs one unit per thread and this backend is
``serial``, so the ensemble's requests come from that thread too), the latest
loaded first. So the world a unit's prompts get is the one its own episode
loaded: two variations with the same task text (mix-paint 28 and 29,
power-component 16 and 17 in ``scienceworld_unseen_short``) are told apart by
the load, not the text, and the harness's task binding
(:mod:`veriplan.llm.binding`, which :class:`ControlledAECBackend` hears for
household games) is not needed here. Nothing of it reaches the method under
test but the plans and votes a model with these error rates would give: never
a task id, a truth
value as such, the gold path as a path, or an environment's text.

- **planner** (AEC and its ablations, Query-Only, WKM, the WALL-E stand-in: up
  to K plans per round; Direct: one plan; ReAct: one command per turn): each
  plan is the rest of the loaded gold path from where the agent's history
  says it is (the steps it has carried out, matched in order; a step the
  executor skipped because its effect held is passed over), with two kinds of
  error, each drawn on its own:

  - a *precondition* error, with probability ``p``: one "open door to R" step
    (one whose next step goes through that door; drawn uniformly among the
    rest of the path's) is left out, as a planner that takes the door to be
    open already. Its "go to R" step needs ``open(door to R, ROOM) = true``
    (the action model's precondition), which is in Pre(h): a door of the
    agent's room is in every room description, so w already refutes it (0
    queries); a door of a room the plan reaches later is settled by no query
    ScienceWorld has here (its queries look at the agent's room or the rooms
    next door, and a door's state is seen only from its room): a prediction
    settles it, or V (the need is ungrounded: V does not commit such a plan),
    or its execution ("The door is not open.", a failed step and a new round).
    A path with no such step left has no precondition error to make;
  - a *goal* error, with probability ``g``: where the task text names what to
    focus on (AEC's goal form: ``envmodels.scienceworld_goal`` with named
    targets), the path's first "focus on T" becomes "focus on W", W drawn
    uniformly among the top-level things of the room T is focused in at the
    load, sharing no word with T or the named targets (no air, terminal or
    agent). ScienceWorld ends a task failed (score -100) when the agent
    focuses on anything else, and every step of such a plan can be taken: V's
    goal check refutes it, or the finished plan's outcome shows it, no query.
    Where the text names no thing ("focus on the thing", "the animal"), a
    wrong focus might be a right one, so the goal error leaves out the path's
    last step instead (the plan ends short of the goal; V cannot tell, the
    outcome does, and the next plan is the step left). A path with nothing to
    change (no focus left, or one step) has no goal error to make.

  Plans state no precondition of their own (Pre(h) is what the action model
  derives) and a self-reported score that is a uniform draw;
- **predictor**: as on the household games (``acc``; ``conf=calibrated``
  votes 5:0 / 4:1 / 3:2 at confidence 1 / 0.8 / 0.6 with mean ``acc``, or
  ``conf=over``: unanimous), against the truth *now*: ``at(agent, R)`` and
  ``open(door to R, ROOM)`` from the history (every door starts closed; an
  "open door to R" the engine carried out opens it from both sides), ``in(X,
  R)``, ``in(X, inventory)`` and a container's ``open`` from the engine's state
  (a thing counts under each name the parser takes for it). What neither
  says (a container no state names) is "unknown".

Draws are seeded by (seed, task id, what, where in the path, round or turn,
plan): methods that reach the same point of the same task get the same plans.
"""

from __future__ import annotations

import json
import re
import threading
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from veriplan.envs.actions import ScienceWorldActions
from veriplan.envs.base import Fact
from veriplan.errors import BackendError
from veriplan.llm.types import LLMRequest
from veriplan.methods.aec.controlled_model import Settings, dispatch, draw, vote_text

_ACTIONS = ScienceWorldActions()
_ROOM = re.compile(r"This (?:room|outside location) is called the ([\w ]+?)\.")
_MOVED = re.compile(r"^You move to the ([\w ]+?)\.")
_NOT_WRONG = ("agent", "air")  # never drawn as a wrong focus (everywhere; the agent itself)
# the question wording of envmodels.scienceworld_describe, read back
_QUESTIONS = [(re.compile(r"^the agent is in the (.+)$"), lambda m: ("at", ("agent", m[1]))),
              (re.compile(r"^the (.+) is in the agent's inventory$"),
               lambda m: ("in", (m[1], "inventory"))),
              (re.compile(r"^the (.+) in the (.+) is open$"), lambda m: ("open", (m[1], m[2]))),
              (re.compile(r"^the (.+) is in the (.+)$"), lambda m: ("in", (m[1], m[2])))]
_ASKED = [re.compile(r"Question: does (.+) hold right now\?"),
          re.compile(r"predict whether (.+) is true at this moment\."),
          re.compile(r"^Statement: (.+)\.$", re.M)]
Key = tuple[str, tuple[str, ...]]


def read_question(prompt: str) -> Key | None:
    """The predicate a ScienceWorld prediction prompt asks about (the inverse
    of ``scienceworld_describe``), None when it is none of those."""
    for rx in _ASKED:
        m = rx.search(prompt)
        if m:
            text = m.group(1).strip()
            for q, key in _QUESTIONS:
                mm = q.match(text)
                if mm:
                    return key(mm)
            return None
    return None


def refused(observation: str) -> bool:
    return _ACTIONS.failed(observation)


def _observing(action: str) -> bool:
    return _ACTIONS.parse(action).form == "look"


def _passable(action: str) -> bool:
    """A step the executor may skip (its effect already holds) or that only looks."""
    return action.startswith(("open ", "close ")) or _observing(action)


@dataclass
class World:
    """One load of a task, as the channel read it (see the module docstring)."""

    task_id: str
    task: str
    gold: tuple[str, ...]
    start_room: str
    objects: dict[str, tuple[str, ...]]  # room -> its top-level things (see read_truth)
    named: tuple[str, ...] = ()  # the goal form's named targets ("" when none)
    thread: int = 0
    seq: int = 0
    history: list[tuple[str, str]] = field(default_factory=list)
    env: weakref.ref | None = None
    read: bool = True  # gold and objects read (a load's are read when first asked for)
    _state: tuple[int, frozenset[Fact]] | None = None

    # ----- where the agent is -------------------------------------------------------------
    def progress(self, upto: int | None = None) -> int:
        """How many steps of the gold path the history has carried out: its
        successful commands matched in order; a command may pass over up to two
        steps that open, close or look (the executor skips a step whose effect
        holds), and a look matches only the next step. A refused command counts
        only when it is the next step itself and no focus: the gold path has
        steps the engine refuses when they are played ("You can't move something
        into itself.", an "open" of a door opened from its other side), and its
        replay goes on past them; a refused focus (a plant grown out of the
        path's name for it) is tried again."""
        pos, gold = 0, self.gold
        for action, obs in self.history[:upto]:
            a = " ".join(action.split())
            if refused(obs):
                if pos < len(gold) and gold[pos] == a and not a.startswith("focus on "):
                    pos += 1
                continue
            for j in range(pos, min(len(gold), pos + 3)):
                if gold[j] == a and (j == pos or (not _observing(a) and all(
                        _passable(s) for s in gold[pos:j]))):
                    pos = j + 1
                    break
        return pos

    def room(self) -> str:
        """The agent's room: the start's, or where the latest move took it."""
        room = self.start_room
        for _, obs in self.history:
            m = _MOVED.search(obs)
            if m:
                room = m.group(1)
        return room

    def open_doors(self) -> set[frozenset[str]]:
        """The doors the history opened (and did not close), as room pairs."""
        room, doors = self.start_room, set()
        for action, obs in self.history:
            if refused(obs):
                continue
            m = _MOVED.search(obs)
            if m:
                room = m.group(1)
                continue
            a = " ".join(action.split())
            for verb, now in (("open", "open"), ("close", "closed")):
                if a.startswith(f"{verb} door to ") and f"is now {now}" in obs:
                    pair = frozenset({room, a[len(f"{verb} door to "):]})
                    if verb == "open":
                        doors.add(pair)
                    else:
                        doors.discard(pair)
        return doors

    def focus_room(self, index: int) -> str:
        """The room the gold path is in before its step ``index``."""
        room = self.start_room
        for step in self.gold[:index]:
            if step.startswith("go to "):
                room = step[len("go to "):]
        return room

    # ----- the truth now (for the predictor) ----------------------------------------------
    def state(self) -> frozenset[Fact] | None:
        """The engine's state now (``true_facts``), read once per step; None
        when the engine is gone or no longer holds this load."""
        env = self.env() if self.env is not None else None
        if env is None or getattr(env, "_gold_of", None) != self.task_id:
            return None
        if self._state is None or self._state[0] != len(self.history):
            self._state = (len(self.history), frozenset(env.true_facts()))
        return self._state[1]

    def value(self, key: Key) -> bool | None:
        pred, args = key
        if pred == "at" and len(args) == 2:
            return args[1] == self.room()
        if pred == "open" and len(args) == 2 and args[0].startswith("door to "):
            return frozenset({args[1], args[0][len("door to "):]}) in self.open_doors()
        state = self.state()
        if state is None or len(args) != 2:
            return None
        if pred == "in":
            return Fact("in", args) in state
        if pred == "open":
            if Fact("open", args, True) in state:
                return True
            return False if Fact("open", args, False) in state else None
        return None


class Worlds:
    """The explicit truth channel: the worlds this process's ScienceWorld
    engines loaded (see the module docstring). ``listen()`` registers it with
    the engines; tests may :meth:`add` worlds directly."""

    def __init__(self) -> None:
        self._by_env: dict[int, World] = {}
        self._lock = threading.Lock()
        self._seq = 0
        self.unread = ""  # why the latest load could not be read, if it could not

    # ----- what the engines report --------------------------------------------------------
    def observe(self, env: object, action: str | None, observation: str) -> None:
        if action is None:
            try:
                self.add(read_world(env, observation))
            except Exception as e:  # noqa: BLE001 - the episode goes on; find() says why
                self.unread = f"{type(e).__name__}: {e}"
            return
        with self._lock:
            w = self._by_env.get(id(env))
        if w is not None and w.env is not None and w.env() is env:
            w.history.append((action, observation))

    def add(self, world: World) -> World:
        with self._lock:
            self._seq += 1
            world.seq = self._seq
            env = world.env() if world.env is not None else None
            key = id(env) if env is not None else -self._seq
            self._by_env[key] = world
            for k in [k for k, w in self._by_env.items()
                      if w.env is not None and w.env() is None]:
                del self._by_env[k]  # engines garbage-collected since
        return world

    def find(self, prompt: str) -> World | None:
        """The world whose task text the prompt contains (None: no world's):
        the calling thread's first, then the latest loaded; among texts one
        of which contains another, the longest."""
        with self._lock:
            found = [w for w in self._by_env.values() if w.task and w.task in prompt
                     and (w.env is None or w.env() is not None)]
        if not found:
            if self.unread and "Your task is to" in prompt:
                raise BackendError(f"controlled-aec: a ScienceWorld load could not be read "
                                   f"({self.unread})")
            return None
        longest = max(len(w.task) for w in found)
        me = threading.get_ident()
        world = max((w for w in found if len(w.task) == longest),
                    key=lambda w: (w.thread == me, w.seq))
        if not world.read:
            read_truth(world)
        return world


def read_world(env: object, first: str) -> World:
    """What the channel keeps of a reset: the task id and text, the first
    observation's room, the thread. No engine call (the engine draws a
    variation's world from its call history, and a load the controlled model
    never serves must not see one): the gold path and the things of each room
    are read when the world is first asked for (:func:`read_truth`)."""
    from veriplan.methods.aec.envmodels import scienceworld_goal

    task_id = env._gold_of  # type: ignore[attr-defined]  # (task_id is set after the reset)
    m = _ROOM.search(first)
    goal = scienceworld_goal(env.task_description)  # type: ignore[attr-defined]
    named = goal.targets if goal is not None and goal.named else ()
    return World(task_id, env.task_description.strip(),  # type: ignore[attr-defined]
                 (), m.group(1) if m else "", {}, named, threading.get_ident(),
                 env=weakref.ref(env), read=False)


def read_truth(world: World) -> None:
    """The gold path of the world the episode's engine loaded
    (``gold_path(task_id, loaded=True)``: that load's, no load of its own)
    and each room's top-level things now: the first request about an episode
    comes before its first step (every method asks before it acts), so they
    are the load's."""
    env = world.env() if world.env is not None else None
    if env is None or getattr(env, "_gold_of", None) != world.task_id:
        raise BackendError(f"controlled-aec: the engine that loaded {world.task_id} is gone "
                           "or has loaded another task")
    world.gold = tuple(env.gold_path(world.task_id, loaded=True))  # type: ignore[attr-defined]
    world.objects = room_things(env)
    world.read = True


def room_things(env: object) -> dict[str, tuple[str, ...]]:
    """Each room's top-level things in the engine's object tree, by the name the
    tree gives them (the parser takes it)."""
    with env._java():  # type: ignore[attr-defined]
        tree = env._env.getObjectTree()  # type: ignore[attr-defined]
    return {room["name"]: tuple(c["name"] for c in room.get("contents", {}).values())
            for room in tree.get("contents", {}).values()}


WORLDS = Worlds()
_listening = threading.Lock()


def listen(worlds: Worlds = WORLDS) -> Worlds:
    """Register ``worlds`` with this process's ScienceWorld engines (once)."""
    from veriplan.envs import scienceworld

    with _listening:
        if worlds.observe not in scienceworld.OBSERVERS:
            scienceworld.OBSERVERS.append(worlds.observe)
    return worlds


# ----- the model ----------------------------------------------------------------------------
Step = tuple[int, str]  # (index in the gold path, command)


class Model:
    """The controlled planner and predictor of one world."""

    def __init__(self, world: World, s: Settings) -> None:
        self.w, self.s = world, s

    def draw(self, *parts: object) -> float:
        return draw(self.s, self.w.task_id, *parts)

    def doors(self, pos: int) -> list[int]:
        """Indices of the rest of the path's "open door to R" steps whose next
        step is "go to R" (the precondition error's candidates)."""
        g = self.w.gold
        return [i for i in range(pos, len(g) - 1)
                if g[i].startswith("open door to ")
                and g[i + 1] == f"go to {g[i][len('open door to '):]}"]

    def wrong_focus(self, index: int) -> list[str]:
        """Things the focus of gold step ``index`` could wrongly be: in its room at
        the load, sharing no word with it or the named targets."""
        target = self.w.gold[index][len("focus on "):]
        words = set(target.split()) | {x for t in self.w.named for x in t.split()}
        seen = self.w.objects.get(self.w.focus_room(index), ())
        return sorted({n for n in seen if n not in _NOT_WRONG and not n.startswith("terminal")
                       and not words & set(n.split())})

    def goal_error(self, pos: int) -> tuple[str, int, str] | None:
        """The goal error available from ``pos``: ("focus", index, wrong thing)
        where the goal names its targets, ("short", last index, "") where it
        does not; None when there is nothing to change."""
        g = self.w.gold
        if self.w.named:
            f = next((i for i in range(pos, len(g)) if g[i].startswith("focus on ")), None)
            if f is None or not self.wrong_focus(f):
                return None
            return ("focus", f, "")
        return ("short", len(g) - 1, "") if len(g) - pos > 1 else None

    def steps(self, *key: object, pos: int | None = None) -> list[Step]:
        """One plan from ``pos`` (default: where the history says the agent is),
        as (gold index, command): the rest of the path with a precondition error
        at rate p and a goal error at rate g, each drawn on its own."""
        pos = self.w.progress() if pos is None else pos
        plan: list[Step] = list(enumerate(self.w.gold))[pos:]
        doors = self.doors(pos)
        if doors and self.draw("perturb", pos, *key) < self.s.p:
            skip = doors[int(self.draw("door", pos, *key) * len(doors))]
            plan = [(i, c) for i, c in plan if i != skip]
        err = self.goal_error(pos)
        if self.s.g and err is not None and self.draw("goal", pos, *key) < self.s.g:
            kind, at, _ = err
            if kind == "focus":
                names = self.wrong_focus(at)
                wrong = names[int(self.draw("target", pos, *key) * len(names))]
                plan = [(i, f"focus on {wrong}" if i == at else c) for i, c in plan]
            else:
                plan = [(i, c) for i, c in plan if i != at]
        return plan

    def plans(self, k: int, round_: object) -> str:
        return json.dumps({"plans": [
            {"actions": [c for _, c in self.steps(round_, j)], "preconditions": [],
             "score": round(self.draw("score", self.w.progress(), round_, j), 3)}
            for j in range(k)]})

    def direct(self, round_: object) -> str:
        return json.dumps({"actions": [c for _, c in self.steps("direct", round_)]})

    def react(self, prompt: str = "") -> str:
        """One ReAct turn: the next command of the current plan, drawn again
        after each refused command (from where the agent was then) and followed
        from where the agent is now; a plan that ran out before the task was
        done (its last step left out) is drawn again from here."""
        h = self.w.history
        failures = [i for i, (_, obs) in enumerate(h) if refused(obs)]
        anchor = self.w.progress(failures[-1]) if failures else 0
        plan = self.steps("react", len(failures), pos=anchor)
        pos = self.w.progress()
        nxt = next((c for i, c in plan if i >= pos), None)
        if nxt is None and pos < len(self.w.gold):
            nxt = next((c for _, c in self.steps("react", len(failures), "out", pos=pos)), None)
        return f"Thought: next step.\nAction: {nxt or 'look around'}"

    def vote(self, key: Key, member: int) -> str:
        return vote_text(self.s, self.w.value(key), (self.w.task_id, key[0], *key[1]), member)


def answer(world: World, s: Settings, prompt: str, request: LLMRequest) -> str:
    """The answer to one request about ``world`` (as the household model's)."""
    return dispatch(Model(world, s), prompt, request, read_question)


def world_for(prompt: str, worlds: Worlds | None = None) -> World | None:
    return (worlds or WORLDS).find(prompt)


def make_world(task_id: str, task: str, gold: Sequence[str], start_room: str,
               objects: dict[str, Iterable[str]] | None = None,
               named: Iterable[str] = (), history: Iterable[tuple[str, str]] = ()) -> World:
    """A world without an engine (tests): what :func:`read_world` would read."""
    return World(task_id, task, tuple(gold), start_room,
                 {r: tuple(v) for r, v in (objects or {}).items()}, tuple(named),
                 threading.get_ident(), history=list(history))


__all__ = ["Model", "World", "Worlds", "WORLDS", "answer", "listen", "make_world",
           "read_question", "read_world", "world_for"]
