"""The household games as an :class:`~veriplan.envs.base.Env`: TextWorld's PDDL
engine in its own Python (see ``tw_server.py``), one process per environment
object, so parallel episodes share nothing."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from veriplan.envs.actions import ACTIONS, ModelledEnv
from veriplan.envs.base import Fact, QueryResult
from veriplan.envs.household import grounder, kinds
from veriplan.envs.household.games import load_game
from veriplan.envs.household.generator import Game, alfworld_data, game_domain
from veriplan.errors import EnvironmentDied, VeriplanError

SERVER = Path(__file__).with_name("tw_server.py")
SETUP_HINT = ("create it with 'make textworld' (or: python3 -m venv .venv-textworld && "
              ".venv-textworld/bin/pip install 'textworld[pddl]==1.7.0') and point "
              "VERIPLAN_TEXTWORLD_PYTHON at its python")


def textworld_python() -> str:
    """The Python of the TextWorld environment: VERIPLAN_TEXTWORLD_PYTHON, else
    .venv-textworld beside the current environment or the working directory."""
    given = os.environ.get("VERIPLAN_TEXTWORLD_PYTHON")
    candidates = [given] if given else [
        str(Path(sys.prefix).parent / ".venv-textworld" / "bin" / "python"),
        str(Path.cwd() / ".venv-textworld" / "bin" / "python")]
    for c in candidates:
        if c and Path(c).is_file():
            return c
    tried = ", ".join(filter(None, candidates))
    raise VeriplanError(f"TextWorld's Python was not found ({tried}); {SETUP_HINT}")


def display(name: str) -> str:
    """PDDL object name to the name players see: apple_1 -> apple 1."""
    base, _, n = name.rpartition("_")
    return f"{base} {n}" if base and n.isdigit() else name


def grammar_for(game: Game) -> str:
    grammar = alfworld_data()[1]
    return grammar.replace('"rhs": "Your task is to: UNKNOWN GOAL."',
                           f'"rhs": "Your task is to: {game.task}"')


class Household(ModelledEnv):
    name = "household"

    def __init__(self, max_steps: int = 50, python: str | None = None) -> None:
        super().__init__(max_steps)
        self._proc = subprocess.Popen(
            [python or textworld_python(), str(SERVER)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self._lock = threading.Lock()
        self.game: Game | None = None
        self._state: dict = {}
        self._here: str | None = None
        self._receptacles: frozenset[str] | None = None  # the room's, once listed

    def _check_alive(self) -> None:
        if self._proc.poll() is not None:
            raise self._died("it has exited")

    def _ask(self, msg: dict) -> dict:
        self._check_alive()
        with self._lock:
            try:
                self._proc.stdin.write(json.dumps(msg) + "\n")
                self._proc.stdin.flush()
                line = self._proc.stdout.readline()
            except (OSError, ValueError) as e:  # broken pipe; closed file
                raise self._died(f"{type(e).__name__}: {e}") from e
        if not line:
            raise self._died("it closed its output")
        out = json.loads(line)
        if "error" in out:
            raise VeriplanError(f"TextWorld: {out['error']}")
        self._state = out
        return out

    def _died(self, how: str) -> EnvironmentDied:
        code = self._proc.poll()
        status = f"exit status {code}" if code is not None else "still running"
        return EnvironmentDied(f"the TextWorld process (pid {self._proc.pid}) of the household "
                               f"game {self.task_id or (self.game and self.game.id)!r} stopped "
                               f"answering: {how} ({status})")

    # ----- the interface ----------------------------------------------------------
    def _reset(self, task_id: str, seed: int) -> str:
        """``task_id``: a game id (eval/pick_and_place/0) or a game file. The
        games are fixed, so ``seed`` changes nothing (resets are deterministic)."""
        game = load_game(task_id)
        if self.game is None or game.problem != self.game.problem:
            self.game = game
            names = {n: display(n) for n in _objects(game.problem)}
            out = self._ask({"op": "load", "names": names, "game": {
                "pddl_domain": game_domain(), "grammar": grammar_for(game),
                "pddl_problem": game.problem}})
        else:
            out = self._ask({"op": "reset"})
        self.task_description = game.task
        self._here = None
        self._receptacles = None
        return out["feedback"]

    def _step(self, action: str) -> tuple[str, float, bool, dict]:
        # ALFWorld's "put X in/on R" is this grammar's "move X to R"
        out = self._ask({"op": "step", "command": ACTIONS["household"].command(action)})
        won = out["won"]
        return out["feedback"], float(won), bool(won), {"won": won}

    def valid_actions(self) -> list[str]:
        self._check_alive()  # a dead game's last state is no answer
        return list(self._state.get("admissible", []))

    def command_for(self, step: str) -> str | None:
        """The admissible command that performs a PDDL step like
        "(gotolocation agent1 loc_0 loc_3 fridge_1)"."""
        words = step.strip("()").split()
        for cmd, name, args in self._state.get("actions", []):
            if name.lower() == words[0] and [a.lower() for a in args] == words[1:]:
                return cmd
        return None

    def ground(self, text: str, action: str | None = None) -> set[Fact]:
        room = grounder.receptacles(text)
        if room is not None:  # the room's listing names every receptacle
            self._receptacles = frozenset(room)
        return grounder.ground(text)

    def true_facts(self) -> set[Fact]:
        """TextWorld's PDDL state in the grounder's vocabulary, with the
        type-level facts (kind, openable, abilities, cancontain) of every name."""
        raw = [(n.lower(), [display(a) for a in args]) for n, args in self._state["facts"]]
        at = {args[1] for n, args in raw if n == "atlocation"}
        loc_of = {args[0]: args[1] for n, args in raw if n == "receptacleatlocation"}
        facts = {Fact("at", ("agent", r)) for r, loc in loc_of.items() if loc in at}
        if not any(n == "holdsany" for n, _ in raw):
            facts.add(Fact("handempty", ("agent",)))
        kind: dict[str, str] = {}
        contains: set[tuple[str, str]] = set()
        for n, args in raw:
            if n == "inreceptacle":
                facts.add(Fact("in", (args[0], args[1])))
            elif n == "opened":
                facts.add(Fact("open", (args[0],)))
            elif n == "holds":
                facts.add(Fact("holds", ("agent", args[1])))
            elif n in ("ishot", "iscool", "isclean", "istoggled"):
                facts.add(Fact({"ishot": "hot", "iscool": "cool", "isclean": "clean",
                                "istoggled": "toggled"}[n], (args[0],)))
            elif n in ("openable", "pickupable", "heatable", "coolable", "cleanable",
                       "toggleable"):
                facts.add(Fact(n, (args[0],)))
            elif n in ("objecttype", "receptacletype"):
                kind[args[0]] = args[1].lower().removesuffix("type")
            elif n == "cancontain":
                contains.add((args[0].lower().removesuffix("type"),
                              args[1].lower().removesuffix("type")))
        facts |= {Fact("kind", (x, k)) for x, k in kind.items()}
        receptacles = set(loc_of)
        for r in receptacles:
            for o in set(kind) - receptacles:
                if (kind.get(r), kind[o]) in contains:
                    facts.add(Fact("cancontain", (r, o)))
        return facts

    def contradicted(self, facts, truth: set[Fact] | None = None) -> list[Fact]:
        """Asserted facts the PDDL state (``truth``: ``true_facts()``)
        contradicts (it is complete: a fact it lacks is false)."""
        truth = self.true_facts() if truth is None else truth
        out = []
        for f in facts:
            holds = Fact(f.pred, f.args) in truth
            if holds != f.value:
                out.append(f)
        return out

    def query(self, pred: str, *args: str) -> QueryResult:
        """A query macro-action: a few real steps (from the episode's budget)
        that make the game say whether ``pred(args)`` holds. The answer is what
        the text, or the game's admissible commands, support, else None
        (unknown, never a guess):

        - ``open R``, ``openable R``: go to R (or examine it when already there);
          a receptacle that cannot be opened has no open state (None);
        - ``in O R``: go to R, open it when closed, read its complete listing;
        - ``at agent R``: look; ``holds agent O``, ``handempty agent``: inventory;
        - ``hot O``, ``cool O``, ``clean O``, ``toggled O``: examine O, first going
          to (and opening) the receptacle O was last seen in when O is not at hand;
        - ``kind X K`` (no steps): X's name says its kind once the game has shown
          X (every game names a thing after its type, "fridge 1"); a receptacle
          name the room's complete listing of receptacles lacks names nothing
          (False); a name never shown is unknown;
        - the type-level ``pickupable O``, ``toggleable O``, ``heatable O`` /
          ``coolable O`` / ``cleanable O`` and ``cancontain R O``: put the agent
          where the game's command for them (take, use, heat/cool/clean, move)
          would run, then read the admissible commands, which TextWorld lists
          exactly for the actions whose PDDL preconditions hold: the command
          listed is True; not listed while every other precondition is
          grounded is False; otherwise None. ``pickupable`` needs an empty
          hand, the abilities and ``cancontain`` need O at hand (a query never
          takes or drops anything); what only the ability's own action brings
          about answers at once (holding O: pickupable; hot O: heatable; ...).

        The answer is read from the grounded store (``grounded``) as the
        macro's steps left it; ``facts`` holds what the macro's observations
        grounded that is still current after it, the answer included."""
        self._check_alive()
        args = tuple(a.strip() for a in args)
        if pred in ("at", "holds") and len(args) == 1:
            args = ("agent", *args)
        if pred == "handempty" and not args:
            args = ("agent",)
        actions: list[str] = []
        texts: list[str] = []
        seen: set[tuple[str, tuple[str, ...]]] = set()

        def do(cmd: str) -> None:
            actions.append(cmd)
            obs = self.step(cmd).observation
            texts.append(obs.text)
            seen.update((f.pred, f.args) for f in obs.facts)

        def can(cmd: str) -> bool:
            return cmd in self.valid_actions() and self.steps < self.max_steps

        def visit(r: str, look_inside: bool) -> None:
            if self._known("at", "agent", r) and can(f"examine {r}"):
                do(f"examine {r}")
            elif can(f"go to {r}"):
                do(f"go to {r}")
            elif can(f"examine {r}"):
                do(f"examine {r}")
            else:
                return
            if look_inside and self._known("open", r) is False and can(f"open {r}"):
                do(f"open {r}")

        def where(obj: str) -> str | None:
            return next((f.args[1] for f in self.grounded
                         if f.pred == "in" and f.value and f.args[0] == obj), None)

        def reachable(r: str) -> bool:
            """The agent is at R and can reach inside (R open or not openable)."""
            return bool(self._known("at", "agent", r)) and \
                (self._known("open", r) is True or self._known("openable", r) is False)

        def admitted(cmd: str, others: bool) -> bool | None:
            """The game's admissible commands on ``cmd``: listed, True; not
            listed while the other preconditions are grounded (``others``), False."""
            if cmd in self.valid_actions():
                return True
            return False if others else None

        value: bool | None = None
        if pred in ("open", "openable") and len(args) == 1:
            visit(args[0], look_inside=False)
            value = self._known(pred, *args) if (pred, args) in seen else None
        elif pred == "in" and len(args) == 2:
            visit(args[1], look_inside=True)
            listed = [grounder.listings(t).get(args[1]) for t in texts]
            listed = [x for x in listed if x is not None]
            value = args[0] in listed[-1] if listed else None
        elif pred == "at" and len(args) == 2 and args[0] == "agent":
            if can("look"):
                do("look")
                here = grounder.facing(texts[-1])
                value = None if here is None else here == args[1]
        elif pred in ("holds", "handempty") and args and args[0] == "agent":
            if can("inventory"):
                do("inventory")
                held = grounder.carrying(texts[-1])
                if held is not None:
                    value = (args[1] in held) if pred == "holds" and len(args) == 2 else \
                        (not held if pred == "handempty" and len(args) == 1 else None)
        elif pred in ("hot", "cool", "clean", "toggled") and len(args) == 1:
            obj = args[0]
            if not can(f"examine {obj}"):
                r = where(obj)
                if r is not None:
                    visit(r, look_inside=True)
            if can(f"examine {obj}"):
                do(f"examine {obj}")
            value = self._known(pred, *args) if (pred, args) in seen else None
        elif pred == "kind" and len(args) == 2:
            value = self._kind(args[0], args[1])
        elif pred == "pickupable" and len(args) == 1:
            obj = args[0]
            if self._known("holds", "agent", obj):
                value = True  # only taking it makes the agent hold it
            elif (r := where(obj)) is not None:
                if self._known("handempty", "agent") is None and can("inventory"):
                    do("inventory")
                if self._known("handempty", "agent"):
                    visit(r, look_inside=True)
                    value = admitted(f"take {obj} from {r}", reachable(r) and bool(
                        self._known("in", obj, r)) and bool(self._known("handempty", "agent")))
        elif pred == "toggleable" and len(args) == 1:
            obj = args[0]
            if self._known("toggled", obj):
                value = True  # only switching it makes it toggled
            elif (r := where(obj)) is not None:
                visit(r, look_inside=False)
                value = admitted(f"use {obj}", bool(self._known("at", "agent", r)) and
                                 bool(self._known("in", obj, r)))
        elif pred in _STATIONS and len(args) == 1:
            obj = args[0]
            verb, station, state = _STATIONS[pred]
            if self._known(state, obj):
                value = True  # only that action brings it about
            elif self._known("holds", "agent", obj):
                stations = sorted(f.args[0] for f in self.grounded
                                  if f.pred == "kind" and f.value and f.args[1] == station)
                r = next((x for x in stations if self._known("at", "agent", x)),
                         stations[0] if stations else None)
                if r is not None:
                    if not self._known("at", "agent", r) and can(f"go to {r}"):
                        do(f"go to {r}")
                    value = admitted(f"{verb} {obj} with {r}",
                                     bool(self._known("at", "agent", r)) and
                                     bool(self._known("holds", "agent", obj)))
        elif pred == "cancontain" and len(args) == 2:
            r, obj = args
            if self._known("holds", "agent", obj) and self._kind(r, kinds.kind(r)):
                visit(r, look_inside=True)
                value = admitted(f"move {obj} to {r}", reachable(r) and
                                 bool(self._known("holds", "agent", obj)))
        else:
            return QueryResult(None, frozenset(), 0)
        facts = {f for f in self.grounded if (f.pred, f.args) in seen}
        if value is not None:
            answer = Fact(pred, args, value)
            facts = {f for f in facts if (f.pred, f.args) != (pred, args)} | {answer}
            self.grounded = frozenset(
                {f for f in self.grounded if (f.pred, f.args) != (pred, args)} | {answer})
        return QueryResult(value, frozenset(facts), len(actions), tuple(actions))

    def _known(self, pred: str, *args: str) -> bool | None:
        """The grounded value of ``pred(args)`` (None: not grounded)."""
        return next((f.value for f in self.grounded if f.pred == pred and f.args == args), None)

    def _kind(self, name: str, kind: str) -> bool | None:
        """Whether ``name`` is a ``kind``, when the game has shown that it exists
        (it names things after their type) or, for a receptacle name, that it
        does not (the room's listing of receptacles is complete)."""
        # a true fact names only what exists (a false one may name anything: "apple 9
        # is not in the fridge")
        if any(f.value and name in f.args for f in self.grounded):
            return kinds.kind(name) == kind
        if self._receptacles is not None and name not in self._receptacles and \
                kinds.receptacle_kind(name) is not None and kinds.object_kind(name) is None:
            return False  # no receptacle of the room, and no object kind: nothing
        return None

    def close(self) -> None:
        if self._proc.poll() is None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        for pipe in (self._proc.stdin, self._proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()


# ability -> (the command's verb, the station's kind, the state only that command brings about)
_STATIONS = {"heatable": ("heat", "microwave", "hot"), "coolable": ("cool", "fridge", "cool"),
             "cleanable": ("clean", "sinkbasin", "clean")}


def _objects(problem: str) -> list[str]:
    body = problem.split("(:objects", 1)[1].split(")", 1)[0]
    return [line.split(" - ")[0].strip() for line in body.splitlines() if " - " in line]
