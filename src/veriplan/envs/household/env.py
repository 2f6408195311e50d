"""The household games as an :class:`~veriplan.envs.base.Env`: TextWorld's PDDL
engine in its own Python (see ``tw_server.py``), one process per environment
object, so parallel episodes share nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from veriplan.envs.base import Env, Fact, QueryResult
from veriplan.envs.household import grounder
from veriplan.envs.household.games import load_game
from veriplan.envs.household.generator import Game, alfworld_data, game_domain
from veriplan.errors import VeriplanError

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


class Household(Env):
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

    def _ask(self, msg: dict) -> dict:
        with self._lock:
            self._proc.stdin.write(json.dumps(msg) + "\n")
            self._proc.stdin.flush()
            line = self._proc.stdout.readline()
        if not line:
            raise VeriplanError("the TextWorld process ended unexpectedly")
        out = json.loads(line)
        if "error" in out:
            raise VeriplanError(f"TextWorld: {out['error']}")
        self._state = out
        return out

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
        return out["feedback"]

    def _step(self, action: str) -> tuple[str, float, bool, dict]:
        out = self._ask({"op": "step", "command": action})
        won = out["won"]
        return out["feedback"], float(won), bool(won), {"won": won}

    def valid_actions(self) -> list[str]:
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
        return grounder.ground(text)

    def true_facts(self) -> set[Fact]:
        raw = [(n.lower(), [display(a) for a in args]) for n, args in self._state["facts"]]
        at = {args[1] for n, args in raw if n == "atlocation"}
        loc_of = {args[0]: args[1] for n, args in raw if n == "receptacleatlocation"}
        facts = {Fact("at", ("agent", r)) for r, loc in loc_of.items() if loc in at}
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
        return facts

    def contradicted(self, facts) -> list[Fact]:
        truth = self.true_facts()
        out = []
        for f in facts:
            holds = Fact(f.pred, f.args) in truth
            if holds != f.value:
                out.append(f)
        return out

    def query(self, pred: str, *args: str) -> QueryResult:
        """``open R`` / ``in O R``: go to R, open it when it is closed (and the
        question is about its contents), then read the answer. Each command is a
        real step from the episode's budget."""
        if pred not in ("open", "in") or not args:
            return QueryResult(None, frozenset(), 0)
        target = args[-1]
        actions: list[str] = []
        facts: set[Fact] = set()

        def do(cmd: str) -> None:
            actions.append(cmd)
            facts.update(self.step(cmd).observation.facts)

        if f"go to {target}" in self.valid_actions():
            do(f"go to {target}")
        if pred == "in" and Fact("open", (target,), False) in facts and \
                f"open {target}" in self.valid_actions():
            do(f"open {target}")
        if pred == "open":
            known = [f.value for f in facts if f.pred == "open" and f.args == (target,)]
            value = known[-1] if known else (True if actions else None)
        else:
            seen = any(f.pred == "in" and f.args[1] == target for f in facts) or \
                Fact("open", (target,), True) in facts
            value = Fact("in", args) in facts if seen else None
        return QueryResult(value, frozenset(facts), len(actions), tuple(actions))

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()


def _objects(problem: str) -> list[str]:
    body = problem.split("(:objects", 1)[1].split(")", 1)[0]
    return [line.split(" - ")[0].strip() for line in body.splitlines() if " - " in line]
