"""A two-room ScienceWorld-like lab behind the Env contract, for AEC's
ScienceWorld tests without the Java engine: ScienceWorld's texts, its grounder's
vocabulary ((at agent ROOM), (in X ROOM), (open X ROOM)) and its physics that
changes things on every step (here: the apple rots away after the first step
the engine carries out). Episodes run as ``EnvTask("scienceworld", ...)``, so
AEC uses the real ScienceWorld model (rules, frame rules, action model, goal
forms); :func:`patch` makes ``EnvTask.make`` return the lab."""

from __future__ import annotations

import re

from veriplan.envs.actions import ACTIONS, ModelledEnv
from veriplan.envs.base import EnvTask, Fact, QueryResult

TASK = ("Your task is to find a(n) apple. First, focus on the apple. Then, move it to the "
        "fridge in the kitchen.")
NOTHING = "No known action matches that input."


class Lab(ModelledEnv):
    name = "scienceworld"

    def __init__(self, max_steps: int = 100) -> None:
        super().__init__(max_steps)
        self.score = 0.0

    def _reset(self, task_id: str, seed: int) -> str:
        self.room = "kitchen"
        self.things = {"kitchen": ["apple", "fridge", "table"], "hallway": ["chair"]}
        self.fridge_open = False
        self.inventory: list[str] = []
        self.focused: str | None = None
        self.ticks = 0
        self.task_description = TASK
        return self._look()

    def _look(self) -> str:
        lines = [f"This room is called the {self.room}. In it, you see: ", "\tthe agent"]
        door = "open" if self.fridge_open else "closed"
        for t in self.things[self.room]:
            lines.append(f"\ta {t}" + (f". The fridge door is {door}" if t == "fridge" else ""))
        other = "hallway" if self.room == "kitchen" else "kitchen"
        lines += ["You also see:", f"\tA door to the {other} (that is open)"]
        return "\n".join(lines)

    def _tick(self) -> None:
        self.ticks += 1
        if self.ticks == 1 and "apple" in self.things["kitchen"]:
            self.things["kitchen"].remove("apple")  # the apple rots away

    def _step(self, action: str) -> tuple[str, float, bool, dict]:
        a = " ".join(action.split())
        here = self.things[self.room]
        text = NOTHING
        if a == "look around":
            text = self._look()
        elif a == "wait":
            text = "You decide to wait for 1 iterations."
        elif m := re.fullmatch(r"go to (kitchen|hallway)", a):
            if m.group(1) != self.room:
                self.room = m.group(1)
                text = f"You move to the {self.room}."
        elif m := re.fullmatch(r"pick up (\w+)", a):
            if m.group(1) in here and m.group(1) not in ("fridge", "table"):
                here.remove(m.group(1))
                self.inventory.append(m.group(1))
                text = f"You move the {m.group(1)} to the inventory."
        elif a == "open fridge" and "fridge" in here:
            text = "The fridge is already open." if self.fridge_open else \
                "The fridge is now open."
            self.fridge_open = True
        elif m := re.fullmatch(r"move (\w+) to fridge", a):
            if not self.fridge_open:
                text = "That can't be moved there, because the fridge isn't open."
            elif m.group(1) in self.inventory:
                text = f"You move the {m.group(1)} to the fridge."
        elif m := re.fullmatch(r"focus on (\w+)", a):
            self.focused = m.group(1)
            text = f"You focus on the {m.group(1)}."
        elif m := re.fullmatch(r"activate (\w+)", a):
            text = f"The {m.group(1)} is now activated."
        if not ACTIONS["scienceworld"].failed(text):
            self._tick()
        return text, 0.0, False, {"score": 0, "won": False}

    def ground(self, text: str, action: str | None = None) -> set[Fact]:
        facts: set[Fact] = set()
        if m := re.search(r"This room is called the (\w+)\.", text):
            room = m.group(1)
            facts.add(Fact("at", ("agent", room)))
            listing = text.split("In it, you see:", 1)[1].split("You also see:")[0]
            for line in listing.split("\n"):
                name = re.sub(r"^\ta ", "", line).split(".")[0].strip()
                if line.startswith("\ta "):
                    facts.add(Fact("in", (name, room)))
            for state in re.findall(r"The fridge door is (open|closed)", text):
                facts.add(Fact("open", ("fridge", room), state == "open"))
            for other, state in re.findall(r"A door to the (\w+) \(that is (open|closed)\)", text):
                facts.add(Fact("open", (f"door to {other}", room), state == "open"))
        if m := re.match(r"You move to the (\w+)\.", text):
            facts.add(Fact("at", ("agent", m.group(1))))
        if m := re.match(r"You move the (\w+) to the inventory\.", text):
            facts.add(Fact("in", (m.group(1), "inventory")))
        if text == "The fridge is now open.":
            facts.add(Fact("open", ("fridge", self.room)))
        return facts

    def query(self, pred: str, *args: str) -> QueryResult:
        if pred not in ("in", "open") or len(args) != 2 or args[1] != self.room:
            return QueryResult(None, frozenset(), 0)
        facts = self.step("look around").observation.facts
        if pred == "in":
            value = True if Fact("in", args) in facts else None
        else:
            seen = {f.value for f in facts if f.pred == "open" and f.args == args}
            value = seen.pop() if len(seen) == 1 else None
        return QueryResult(value, frozenset(facts), 1, ("look around",))


def task(task_id: str = "find-apple:0") -> EnvTask:
    return EnvTask("scienceworld", task_id, split="unseen", task_type="find-apple")


def patch(monkeypatch) -> list[Lab]:
    """``EnvTask.make`` gives a new lab; returns the labs made."""
    made: list[Lab] = []

    def make(self: EnvTask) -> Lab:
        made.append(Lab())
        return made[-1]

    monkeypatch.setattr(EnvTask, "make", make)
    return made
