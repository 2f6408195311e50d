"""A controlled test model for AEC and its baselines on the household games:
errors known and seeded, so AEC's claims can be tested where no strong model
can run.

``--backend controlled-aec --model aec:p=0.2,g=0.2,acc=0.8,conf=calibrated,seed=0``
answers AEC's planning, prediction, Direct and ReAct prompts (a prompt about a
ScienceWorld task an engine of this process loaded is answered by the model of
:mod:`.controlled_scienceworld`, with the same settings):

- **planner** (AEC, its ablations, WKM, Query-Only, the WALL-E stand-in: up to
  K plans per round; Direct: one plan; ReAct: one command per turn): each
  plan is the game's gold path (Fast Downward's walkthrough, as commands),
  with two kinds of error, each drawn on its own:

  - a *precondition* error, with probability ``p``: the place the first
    object is taken from is replaced by another receptacle of the room, drawn
    uniformly (the plan goes there, opens it if it opens, takes the object
    from it, then goes on as the gold path does). Its step "take" needs
    ``in(object, place)``, which is in Pre(h), so AEC's gate settles it (by a
    query or a prediction) before V is reached;
  - a *goal* error, with probability ``g`` (default 0): the plan's last "move"
    puts the object in a receptacle of another kind than the gold one (drawn
    uniformly; the plan goes there and opens it if it opens), or, in a task
    with no final move (look at an object under a lamp), the lamp is never
    switched on (the "use" step is left out). Every step of such a plan can
    be taken; only V's goal check (or the finished plan's outcome) shows it
    wrong: the error no query settles.

  Each plan states the one precondition it relies on, ``in(object, place) =
  true``. Its self-reported score is a uniform draw (it says nothing). The
  planner reads its prompt's grounded facts as a model would for one thing:
  when they say the first object is held, or is in a receptacle other than
  its gold source and target, the plan starts from there (takes it from that
  receptacle, or does not take it again), so an executed wrong placement can
  be undone by the next plan;
- **predictor** (M(w, p), each ensemble member one request): a predicate
  whose value the game's initial state fixes (in, open, at, holds, hot, cool,
  clean, switched on) gets a predicted value that is the truth with
  probability ``acc``. Its confidence, shown as the members' votes out of 5:
  ``conf=calibrated`` draws a confidence c from {1.0, 0.8, 0.6} with mean
  ``acc`` (the two levels around acc) and makes the prediction right with
  probability c, votes round(5c) for it and the rest against (5:0, 4:1, 3:2);
  ``conf=over`` makes every prediction unanimous (5:0), right with probability
  ``acc``: as sure when wrong as when right. Predicates the initial state
  does not fix (kind, cancontain, ...) are answered "unknown".

Draws are seeded by (seed, game, what, round or member): the same model errs
on the same plans and predicates whichever method calls it, so methods run on
the same games are paired.

The truth channel: :class:`GameTruth` reads the household games
(``household_eval`` by default; ``games=`` gives :class:`Game` objects
directly, for tests). The backend is :class:`~veriplan.llm.binding.TaskBound`:
in the benchmark harness each unit's game is bound (its instance id, the game
id) for that unit's thread of control before the method runs and cleared
after, and the model answers about exactly that game (a prompt without the
game's task sentence is refused). Unbound (``veriplan aec run`` by hand, or
code that binds nothing), it picks the game by the task sentence in the
prompt, ties broken by the receptacle names the prompt mentions (a planning
prompt lists the room's commands), else the game last picked for that
sentence (a prediction prompt names few objects; run one worker per backend).
A ScienceWorld prompt goes to the world its engine loaded
(:mod:`.controlled_scienceworld`'s channel), bound or not. The truth
a prediction is drawn against is the game's initial state: a predicate the
agent's own actions changed since is not re-read. Nothing else reaches the
method under test: its answers are the plans and votes a model with these
error rates would give, never a game id, a truth value as such, or an
environment's text.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from veriplan.errors import BackendError
from veriplan.llm.binding import TaskBinding, TaskRef
from veriplan.llm.controlled import ControlledModel
from veriplan.llm.types import LLMRequest
from veriplan.methods.aec import controlled_scienceworld as sw
from veriplan.methods.aec.controlled_model import Settings, dispatch, draw, vote_text

if TYPE_CHECKING:
    from veriplan.envs.household.generator import Game


def _name(pddl: str) -> str:
    return pddl.replace("_", " ")


def _kind(name: str) -> str:
    """A receptacle's kind: "drawer 2" -> "drawer"."""
    base, _, n = name.rpartition(" ")
    return base if base and n.isdigit() else name


def command(step: str) -> str | None:
    """A PDDL step of the household domain as the game's text command."""
    w = step.strip("()").split()
    if not w:
        return None
    a = [_name(x) for x in w[1:]]
    return {"gotolocation": lambda: f"go to {a[3]}",
            "openobject": lambda: f"open {a[2]}",
            "closeobject": lambda: f"close {a[2]}",
            "pickupobject": lambda: f"take {a[2]} from {a[3]}",
            "putobject": lambda: f"move {a[2]} to {a[3]}",
            "heatobject": lambda: f"heat {a[3]} with {a[2]}",
            "coolobject": lambda: f"cool {a[3]} with {a[2]}",
            "cleanobject": lambda: f"clean {a[3]} with {a[2]}",
            "toggleobject": lambda: f"use {a[2]}"}.get(w[0].lower(), lambda: None)()


class GameFacts:
    """One game's truth, read from its PDDL problem and plan."""

    def __init__(self, game: Game) -> None:
        self.id, self.task = game.id, game.task.strip()
        p = game.problem
        self.receptacles = [_name(x) for x in re.findall(r"(\S+) - receptacle\b", p)]
        self.openable = {_name(x) for x in re.findall(r"\(openable (\S+)\)", p)}
        self.opened = {_name(x) for x in re.findall(r"\(opened (\S+)\)", p)}
        self.location = {_name(o): _name(r)
                         for o, r in re.findall(r"\(inReceptacle (\S+) (\S+)\)", p)
                         if not o.startswith("?")}
        self.gold = [c for c in (command(s) for s in game.plan) if c]
        take = next((i for i, c in enumerate(self.gold) if c.startswith("take ")), None)
        self.take = take
        m = re.match(r"take (.+) from (.+)$", self.gold[take]) if take is not None else None
        self.obj, self.source = (m.group(1), m.group(2)) if m else ("", "")

    def after_first(self) -> GameFacts | None:
        """The rest of the gold path once its first object is where the path
        puts it, as a game of its own (pick two: the second object's steps);
        None when nothing is taken after that."""
        put = next((i for i, c in enumerate(self.gold) if self.obj
                    and c.startswith(f"move {self.obj} to ")), None)
        rest = self.gold[put + 1:] if put is not None else []
        if not any(c.startswith("take ") for c in rest):
            return None
        view = copy.copy(self)
        view.gold = rest
        view.take = next(i for i, c in enumerate(rest) if c.startswith("take "))
        m = re.match(r"take (.+) from (.+)$", rest[view.take])
        assert m is not None
        view.obj, view.source = m.group(1), m.group(2)
        return view

    def plan(self, place: str, *, held: bool = False) -> list[str]:
        """The gold path with the first object taken from ``place`` (``held``:
        the object is already held, so the plan goes on from the gold take)."""
        if self.take is None or (place == self.source and not held):
            return list(self.gold)
        rest = self.gold[self.take + 1:]
        if held:
            return rest
        head = [f"go to {place}"] + ([f"open {place}"] if place in self.openable else [])
        return head + [f"take {self.obj} from {place}"] + rest

    @property
    def target(self) -> str:
        """Where the gold path's last "move" puts its object ("" if none)."""
        moves = [m.group(2) for m in (re.match(r"move (.+) to (.+)$", c) for c in self.gold)
                 if m]
        return moves[-1] if moves else ""

    def wrong_targets(self) -> list[str]:
        """The receptacles of another kind than the gold target."""
        t = self.target
        return [r for r in self.receptacles if t and _kind(r) != _kind(t)]

    def misplaced(self, actions: list[str], where: str) -> list[str]:
        """``actions`` with the goal error: the last "move" goes to ``where``
        (reached, and opened if it opens, in place of the gold target), or
        without its "use" step when there is no move."""
        last = max((i for i, c in enumerate(actions) if c.startswith("move ")), default=None)
        if last is None:
            use = max((i for i, c in enumerate(actions) if c.startswith("use ")), default=None)
            return actions if use is None else actions[:use] + actions[use + 1:]
        m = re.match(r"move (.+) to (.+)$", actions[last])
        assert m is not None
        what, gold = m.group(1), m.group(2)
        go = max((i for i in range(last) if actions[i] == f"go to {gold}"), default=last)
        between = [c for c in actions[go + 1:last] if not c.endswith(f" {gold}")]
        return (actions[:go] + [f"go to {where}"]
                + ([f"open {where}"] if where in self.openable else []) + between
                + [f"move {what} to {where}"] + actions[last + 1:])

    def value(self, pred: str, args: tuple[str, ...]) -> bool | None:
        """The initial state's value of a predicate, None when it does not fix it."""
        if pred == "in":
            return self.location.get(args[0]) == args[1]
        if pred == "open":
            return args[0] in self.opened
        if pred in ("at", "holds", "hot", "cool", "clean", "toggled"):
            return False  # the agent starts in the middle of the room, holding nothing
        return None


_QUESTIONS = [(re.compile(r"^the agent is at (.+)$"), "at", lambda m: ("agent", m.group(1))),
              (re.compile(r"^the agent is holding (.+)$"), "holds",
               lambda m: ("agent", m.group(1))),
              (re.compile(r"^(.+) is in or on (.+)$"), "in", lambda m: (m.group(1), m.group(2))),
              (re.compile(r"^(.+) is open$"), "open", lambda m: (m.group(1),)),
              (re.compile(r"^(.+) is (hot|cool|clean)$"), "", lambda m: (m.group(1),)),
              (re.compile(r"^(.+) has been switched on$"), "toggled", lambda m: (m.group(1),))]
_ASKED = [re.compile(r"Question: does (.+) hold right now\?"),
          re.compile(r"predict whether (.+) is true at this moment\."),
          re.compile(r"^Statement: (.+)\.$", re.M)]


def read_question(prompt: str) -> tuple[str, tuple[str, ...]] | None:
    """The predicate a prediction prompt asks about (the inverse of AEC's
    household wording), None when it is not one of those above."""
    for rx in _ASKED:
        m = rx.search(prompt)
        if m:
            text = m.group(1).strip()
            for q, pred, args in _QUESTIONS:
                mm = q.match(text)
                if mm:
                    return (pred or mm.group(2)), args(mm)
            return None
    return None


class GameTruth:
    """The explicit truth channel: the bound game (:meth:`bound`), else the
    game the prompt names (:meth:`find`; see the module docstring)."""

    def __init__(self, games: Iterable[Game] | None = None, split: str = "eval") -> None:
        self._games = [GameFacts(g) for g in games] if games is not None else None
        self._given = self._games
        self._split = split
        self._last: dict[str, GameFacts] = {}
        self._by_ref: dict[TaskRef, GameFacts] = {}
        self._lock = threading.Lock()

    def games(self) -> list[GameFacts]:
        with self._lock:
            if self._games is None:
                from veriplan.envs.household.games import game_ids, load_game

                self._games = [GameFacts(load_game(i)) for i in game_ids(self._split)]
            return self._games

    def bound(self, ref: TaskRef, prompt: str) -> GameFacts:
        """The game ``ref`` names (the harness's binding: its instance id is
        the game id); the prompt must carry that game's task sentence."""
        with self._lock:
            game = self._by_ref.get(ref)
        if game is None:
            game = next((g for g in self.games() if g.id == ref.instance), None)
            if game is None and self._given is None:
                from veriplan.envs.household.games import load_game

                try:
                    game = GameFacts(load_game(ref.instance))
                except Exception as exc:  # noqa: BLE001 - named in the error below
                    raise BackendError(f"controlled-aec: bound to {ref}, which is no "
                                       f"household game ({exc})") from exc
            if game is None:
                raise BackendError(f"controlled-aec: bound to {ref}, which is not among "
                                   "the games it was given (games=)")
            with self._lock:
                self._by_ref[ref] = game
        if not game.task or game.task not in prompt:
            raise BackendError(f"controlled-aec: bound to {ref}, but the prompt does not "
                               f"carry that game's task ({game.task[:80]!r})")
        return game

    def find(self, prompt: str) -> GameFacts:
        found = [g for g in self.games() if g.task and g.task in prompt]
        if not found:
            raise BackendError("controlled-aec: no household game's task is in the prompt")
        longest = max(len(g.task) for g in found)
        found = [g for g in found if len(g.task) == longest]
        score = {g.id: sum(r in prompt for r in g.receptacles) for g in found}
        top = max(score.values())
        best = [g for g in found if score[g.id] == top]
        with self._lock:
            last = self._last.get(best[0].task)
            if len(best) > 1 and last is not None and last in best:
                return last
            self._last[best[0].task] = best[0]
        return best[0]


class Model:
    """The controlled planner and predictor of one game. ``prompt``: the
    planning prompt, whose grounded facts say where the object is now."""

    def __init__(self, game: GameFacts, s: Settings, prompt: str = "") -> None:
        self.s = s
        # pick two: once the prompt's facts put the first object where the gold path
        # puts it, the plan is the rest of the path, about the second object
        view = game.after_first() if game.obj else None
        if view is not None and re.search(
                rf"^(?:- )?in\({re.escape(game.obj)}, {re.escape(game.target)}\) = true$",
                prompt, re.M):
            game = view
        self.g = game
        obj = re.escape(game.obj)
        self.held = bool(obj) and re.search(
            rf"^(?:- )?holds\(agent, {obj}\) = true$", prompt, re.M) is not None
        seen = re.findall(rf"^(?:- )?in\({obj}, (.+?)\) = true$", prompt, re.M) if obj else []
        if obj and not seen and not self.held:
            # a ReAct prompt has no fact lines: where the latest observation that moved
            # the object put it, unless it was picked up since (its plan then goes on
            # from its position in the plan, see react)
            last = None
            for m in re.finditer(rf"You pick up the {obj} from the (.+?)\.|"
                                 rf"You move the {obj} to the (.+?)\.", prompt):
                last = m
            if last is not None and last.group(2) is not None:
                seen = [last.group(2)]
        moved = [r for r in seen if r not in (game.source, game.target)]
        self.base = moved[0] if moved and not self.held else game.source

    def place(self, *parts: object) -> str:
        """The source of a plan: where the object is (the gold source, or where
        the prompt's facts say it was put), or with probability p another."""
        g, base = self.g, self.base
        others = [r for r in g.receptacles if r != base]
        if not others or not base or draw(self.s, g.id, "perturb", *parts) >= self.s.p:
            return base
        return self.pick(others, "where", *parts)

    def pick(self, names: list[str], *key: object) -> str:
        """One of ``names``, drawn uniformly; a draw that lands on a name that is
        no receptacle (``?r``: the variable of a goal's ``exists``, which the
        problem's text lists with the receptacles) is drawn again, so that every
        other draw stays what it was."""
        name, again = names[int(draw(self.s, self.g.id, *key) * len(names))], 0
        while name.startswith("?") and any(not n.startswith("?") for n in names):
            again += 1
            name = names[int(draw(self.s, self.g.id, *key, "again", again) * len(names))]
        return name

    def actions(self, *parts: object) -> tuple[list[str], str]:
        """One plan's commands and the place it takes the object from: the
        gold path with a precondition error at rate p and a goal error at rate
        g, each drawn on its own."""
        g = self.g
        place = self.place(*parts)
        plan = g.plan(place, held=self.held)
        wrong = g.wrong_targets()
        if self.s.g and (wrong or not g.target) and \
                draw(self.s, g.id, "goal", *parts) < self.s.g:
            where = self.pick(wrong, "target", *parts) if wrong else ""
            plan = g.misplaced(plan, where)
        return plan, place

    def plans(self, k: int, round_: object) -> str:
        out = []
        for j in range(k):
            actions, place = self.actions(round_, j)
            out.append({"actions": actions,
                        "preconditions": [{"predicate": "in", "args": [self.g.obj, place],
                                           "value": True}] if place and not self.held else [],
                        "score": round(draw(self.s, self.g.id, "score", round_, j), 3)})
        return json.dumps({"plans": out})

    def direct(self, round_: object) -> str:
        return json.dumps({"actions": self.actions("direct", round_)[0]})

    def react(self, prompt: str) -> str:
        """One ReAct turn: the next command of the current plan. The turns in
        view (the prompt's Action/Observation pairs) say where it is: the last
        command that did something, placed in the plan by the longest run of
        earlier successful commands that matches the steps before it (a
        command may occur twice in a plan: "go to fridge 1" before and after
        taking the egg). A refused command ("Nothing happens.") or a "look"
        (the plan ran out without the task done) makes it draw the plan again."""
        turns = re.findall(r"^Action: (.+)\nObservation: (.*)$", prompt, re.M)
        ok = [a.strip() for a, o in turns
              if not o.startswith("Nothing happens") and a.strip() != "look"]
        tries = sum(o.startswith("Nothing happens") or a.strip() == "look" for a, o in turns)
        plan = self.actions("react", tries)[0]
        at = locate(plan, ok)
        if at is None:
            nxt = plan[0] if plan else "look"
        else:
            nxt = plan[at + 1] if at + 1 < len(plan) else "look"
        return f"Thought: next step.\nAction: {nxt}"

    def vote(self, key: tuple[str, tuple[str, ...]], member: int) -> str:
        return vote_text(self.s, self.g.value(*key), (self.g.id, key[0], *key[1]), member)


def locate(plan: list[str], done: list[str]) -> int | None:
    """The index in ``plan`` of the latest command of ``done`` it holds, at the
    occurrence that the most commands before it in ``done`` match step by
    step (the first such occurrence on a tie); None if it holds none."""
    for t in range(len(done) - 1, -1, -1):
        best, at = -1, None
        for j, step in enumerate(plan):
            if step != done[t]:
                continue
            run = 0
            while run < j and run < t and plan[j - run - 1] == done[t - run - 1]:
                run += 1
            if run > best:
                best, at = run, j
        if at is not None:
            return at
    return None


class ControlledAECBackend(ControlledModel):
    """``--backend controlled-aec --model aec:p=P,acc=A,conf=C,seed=S``.

    :class:`~veriplan.llm.binding.TaskBound`: the benchmark harness binds each
    unit's game (:meth:`bind_task`) and a household prompt is answered about
    exactly that game; unbound, the game is found from the prompt (the module
    docstring's truth channel)."""

    name = "controlled-aec"
    family = "aec"
    # one request at a time, in the caller's thread: the ScienceWorld channel picks
    # the world loaded in the calling thread (an ensemble's requests included)
    serial = True

    def __init__(self, model: str = "aec", *, games: Iterable[Game] | None = None,
                 split: str = "eval", worlds: sw.Worlds | None = None, **_: object) -> None:
        self.settings = Settings.parse(model)
        self.default_model = model
        self.truth = GameTruth(games, split)
        self.worlds = sw.listen() if worlds is None else worlds
        self.requests = []
        self._task = TaskBinding(f"controlled-aec:{model}")

    def bind_task(self, ref: TaskRef) -> AbstractContextManager[None]:
        """Answer household prompts about ``ref`` (for this thread of control)
        until the returned context is left."""
        return self._task.bind(ref)

    def answer(self, prompt: str, request: LLMRequest) -> str:
        world = self.worlds.find(prompt)
        if world is not None:  # a ScienceWorld task (controlled_scienceworld)
            return sw.answer(world, self.settings, prompt, request)
        ref = self._task.current
        game = self.truth.bound(ref, prompt) if ref is not None else self.truth.find(prompt)
        return dispatch(Model(game, self.settings, prompt), prompt, request, read_question)


__all__ = ["ControlledAECBackend", "GameFacts", "GameTruth", "Model", "command", "locate",
           "read_question"]
