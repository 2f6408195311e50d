"""A small kitchen behind the Env contract, for AEC's tests: household-style
text, a sound grounder, query macro-actions that spend steps, its action model
and rules, and a scripted model. Fast: no simulator process."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from veriplan.envs.base import Env, Fact, QueryResult
from veriplan.errors import ConfigError, VeriplanError
from veriplan.methods.aec.domain import GENERIC_RULES, EnvModel, FactState
from veriplan.methods.aec.envmodels import household_describe, household_goal, kind

RECEPTACLES = ("countertop 1", "fridge 1", "cabinet 1", "microwave 1", "microwave 2",
               "table 1", "sinkbasin 1")
OPENABLE = {"fridge", "cabinet", "microwave"}


@dataclass
class Scenario:
    task: str
    where: dict[str, str]  # object -> receptacle
    open: set[str] = field(default_factory=set)
    # after the agent's first arrival at the key, the object moves: (object, to)
    moves: dict[str, tuple[str, str]] = field(default_factory=dict)


SCENARIOS = {
    "hot_apple/fridge": Scenario("put a hot apple in table.",
                                 {"apple 1": "fridge 1", "mug 1": "cabinet 1"}),
    "hot_apple/cabinet": Scenario("put a hot apple in table.",
                                  {"apple 1": "cabinet 1", "mug 1": "countertop 1"}),
    "hot_apple/counter": Scenario("put a hot apple in table.",
                                  {"apple 1": "countertop 1", "mug 1": "cabinet 1"}),
    "hot_apple/open_microwaves": Scenario("put a hot apple in table.",
                                          {"apple 1": "countertop 1"},
                                          open={"microwave 1", "microwave 2"}),
    "hot_apple/moving": Scenario("put a hot apple in table.", {"apple 1": "countertop 1"},
                                 moves={"microwave 1": ("apple 1", "cabinet 1")}),
}

_NAME = r"[a-z]+ \d+"


class FakeKitchen(Env):
    name = "fakekitchen"

    def __init__(self, max_steps: int = 50, strict: bool = False, die_after: int = 0) -> None:
        super().__init__(max_steps)
        self.strict = strict  # heating needs a closed microwave
        self.die_after = die_after  # the simulator dies at this step (0: never)

    def _reset(self, task_id: str, seed: int) -> str:
        if task_id not in SCENARIOS:
            raise ConfigError(f"unknown kitchen task {task_id!r}")
        sc = SCENARIOS[task_id]
        self.where = dict(sc.where)
        self.opened = set(sc.open)
        self.moves = dict(sc.moves)
        self.here: str | None = None
        self.held: str | None = None
        self.hot: set[str] = set()
        self.task_description = sc.task
        return ("You are in the middle of a room. Looking quickly around you, you see "
                + ", ".join(f"a {r}" for r in RECEPTACLES) + f".\n\nYour task is to: {sc.task}")

    def _contents(self, r: str) -> str:
        items = [o for o, x in self.where.items() if x == r]
        listed = ", ".join(f"a {o}" for o in items) if items else "nothing"
        if kind(r) in OPENABLE:
            if r not in self.opened:
                return f"The {r} is closed."
            return f"The {r} is open. In it, you see {listed}."
        return f"On the {r}, you see {listed}."

    def _step(self, action: str) -> tuple[str, float, bool, dict]:
        if self.die_after and self.steps >= self.die_after:
            raise VeriplanError("the kitchen process ended unexpectedly")
        text = self._act(action.strip())
        won = any(kind(o) == "apple" and kind(r) == "table" and o in self.hot
                  for o, r in self.where.items())
        return text, float(won), won, {"won": won}

    def _act(self, a: str) -> str:
        nothing = "Nothing happens."
        if m := re.fullmatch(rf"go to ({_NAME})", a):
            r = m.group(1)
            if r not in RECEPTACLES:
                return nothing
            self.here = r
            if r in self.moves:
                o, to = self.moves.pop(r)
                if self.where.get(o):
                    self.where[o] = to
            return f"You arrive at {r}. {self._contents(r)}"
        if m := re.fullmatch(rf"(open|close) ({_NAME})", a):
            verb, r = m.groups()
            if r != self.here or kind(r) not in OPENABLE or \
                    (verb == "open") == (r in self.opened):
                return nothing
            if verb == "open":
                self.opened.add(r)
                return f"You open the {r}. {self._contents(r)}"
            self.opened.discard(r)
            return f"You close the {r}."
        if m := re.fullmatch(rf"take ({_NAME}) from ({_NAME})", a):
            o, r = m.groups()
            if r != self.here or self.where.get(o) != r or self.held or \
                    (kind(r) in OPENABLE and r not in self.opened):
                return nothing
            del self.where[o]
            self.held = o
            return f"You pick up the {o} from the {r}."
        if m := re.fullmatch(rf"move ({_NAME}) to ({_NAME})", a):
            o, r = m.groups()
            if self.held != o or r != self.here or (kind(r) in OPENABLE and r not in self.opened):
                return nothing
            self.held = None
            self.where[o] = r
            return f"You move the {o} to the {r}."
        if m := re.fullmatch(rf"heat ({_NAME}) with ({_NAME})", a):
            o, r = m.groups()
            if self.held != o or r != self.here or kind(r) != "microwave" or \
                    (self.strict and r in self.opened):
                return nothing
            self.hot.add(o)
            return f"You heat the {o} using the {r}."
        return nothing

    def valid_actions(self) -> list[str]:
        out = [f"go to {r}" for r in RECEPTACLES]
        if self.here:
            out += [f"open {self.here}", f"close {self.here}"]
        return out

    def ground(self, text: str, action: str | None = None) -> set[Fact]:
        facts: set[Fact] = set()
        for r in re.findall(rf"You arrive at ({_NAME})\.", text):
            facts.add(Fact("at", ("agent", r)))
        for r in re.findall(rf"The ({_NAME}) is closed\.", text):
            facts.add(Fact("open", (r,), False))
        for r in re.findall(rf"The ({_NAME}) is open\.", text):
            facts.add(Fact("open", (r,), True))
        for r, items in re.findall(rf"(?:On the ({_NAME}), you see|In it, you see) ([^.]*)\.",
                                   text):
            r = r or (re.findall(rf"The ({_NAME}) is open\.", text) or [""])[0]
            listed = set(re.findall(_NAME, items))
            for o in self._objects():  # a listing names everything in the receptacle
                facts.add(Fact("in", (o, r), o in listed))
        for o, r in re.findall(rf"You pick up the ({_NAME}) from the ({_NAME})\.", text):
            facts |= {Fact("holds", ("agent", o)), Fact("in", (o, r), False)}
        for o, r in re.findall(rf"You move the ({_NAME}) to the ({_NAME})\.", text):
            facts |= {Fact("in", (o, r)), Fact("holds", ("agent", o), False)}
        for o, _ in re.findall(rf"You heat the ({_NAME}) using the ({_NAME})\.", text):
            facts.add(Fact("hot", (o,)))
        return facts

    def _objects(self) -> list[str]:
        return sorted(set(SCENARIOS_OBJECTS))

    def query(self, pred: str, *args: str) -> QueryResult:
        if pred not in ("open", "in") or not args or args[-1] not in RECEPTACLES:
            return QueryResult(None, frozenset(), 0)
        r = args[-1]
        actions, facts = [], set()

        def do(cmd: str) -> None:
            actions.append(cmd)
            facts.update(self.step(cmd).observation.facts)

        if self.here != r:
            do(f"go to {r}")
        if pred == "in" and kind(r) in OPENABLE and r not in self.opened:
            do(f"open {r}")
        if pred == "open":
            value = r in self.opened if actions or self.here == r else None
        else:
            value = Fact("in", tuple(args), True) in facts if (
                kind(r) not in OPENABLE or r in self.opened) else None
        return QueryResult(value, frozenset(facts), len(actions), tuple(actions))


SCENARIOS_OBJECTS = ("apple 1", "mug 1")


class KitchenActions:
    """The kitchen's commands, symbolically. ``strict``: heating needs a closed
    microwave (the strict kitchen's rule)."""

    def __init__(self, strict: bool = False) -> None:
        self.strict = strict

    def preconditions(self, action: str, facts: FactState):
        a = action.strip()
        if re.fullmatch(rf"go to ({_NAME})", a):
            return []
        if m := re.fullmatch(rf"(open|close) ({_NAME})", a):
            verb, r = m.groups()
            return [Fact("at", ("agent", r)), Fact("open", (r,), verb == "close")]
        if m := re.fullmatch(rf"take ({_NAME}) from ({_NAME})", a):
            o, r = m.groups()
            out = [Fact("at", ("agent", r)), Fact("in", (o, r))]
            return out + ([Fact("open", (r,))] if kind(r) in OPENABLE else [])
        if m := re.fullmatch(rf"move ({_NAME}) to ({_NAME})", a):
            o, r = m.groups()
            out = [Fact("holds", ("agent", o)), Fact("at", ("agent", r))]
            return out + ([Fact("open", (r,))] if kind(r) in OPENABLE else [])
        if m := re.fullmatch(rf"heat ({_NAME}) with ({_NAME})", a):
            o, r = m.groups()
            out = [Fact("holds", ("agent", o)), Fact("at", ("agent", r))]
            return out + ([Fact("open", (r,), False)] if self.strict else [])
        return None

    def effects(self, action: str, facts: FactState):
        a = action.strip()
        if m := re.fullmatch(rf"go to ({_NAME})", a):
            r = m.group(1)
            return [Fact("at", ("agent", r))] + [
                Fact("at", ("agent", x), False) for (_, x), v in facts.by_pred("at").items()
                if v and x != r]
        if m := re.fullmatch(rf"(open|close) ({_NAME})", a):
            verb, r = m.groups()
            return [Fact("open", (r,), verb == "open")]
        if m := re.fullmatch(rf"take ({_NAME}) from ({_NAME})", a):
            o, r = m.groups()
            return [Fact("holds", ("agent", o)), Fact("in", (o, r), False)]
        if m := re.fullmatch(rf"move ({_NAME}) to ({_NAME})", a):
            o, r = m.groups()
            return [Fact("in", (o, r)), Fact("holds", ("agent", o), False)]
        if m := re.fullmatch(rf"heat ({_NAME}) with ({_NAME})", a):
            return [Fact("hot", (m.group(1),))]
        return []


@dataclass(frozen=True)
class MicrowavesAreClosed:
    """Unsound on purpose: says every microwave is closed."""

    name: str = "microwave_closed"

    def entails(self, facts, pred, args):
        return False if pred == "open" and kind(args[0]) == "microwave" else None


PREDICATES = {"at": 2, "in": 2, "open": 1, "holds": 2, "hot": 1}


def model(strict: bool = False, extra_rules=()) -> EnvModel:
    return EnvModel("fakekitchen", rules=GENERIC_RULES + tuple(extra_rules),
                    actions=KitchenActions(strict), goal_for=household_goal,
                    predicates=PREDICATES,
                    actions_help="go to R / open R / close R / take O from R / move O to R / "
                                 "heat O with microwave N", describe=household_describe)


# ----- plans and the scripted model ----------------------------------------------------------
def plan(where: str, *, score: float = 0.5, stated=(), heat_with: str = "microwave 1",
         skip_heat: bool = False, close_first: bool = False) -> dict:
    """The plan that takes apple 1 from ``where``, heats it and puts it on the table."""
    steps = [f"go to {where}"]
    if kind(where) in OPENABLE:
        steps.append(f"open {where}")
    steps += [f"take apple 1 from {where}", f"go to {heat_with}"]
    if close_first:
        steps.append(f"close {heat_with}")
    if not skip_heat:
        steps.append(f"heat apple 1 with {heat_with}")
    steps += ["go to table 1", "move apple 1 to table 1"]
    pre = [{"predicate": "in", "args": ["apple 1", where], "value": True}]
    pre += [{"predicate": p, "args": list(a), "value": v} for p, a, v in stated]
    return {"actions": steps, "preconditions": pre, "score": score}


class Model:
    """Answers by request kind: ``plans`` (one list of plans per planning round,
    in order), ``prediction`` (by the predicate's words in the question: yes,
    no or unknown; unknown when not listed), ``plan`` (Direct's plans) and
    ReAct turns (plain text, in order)."""

    def __init__(self, rounds=(), beliefs=None, direct=(), turns=()) -> None:
        self.rounds = list(rounds)
        self.beliefs = dict(beliefs or {})
        self.direct = list(direct)
        self.turns = list(turns)
        self.asked: list[str] = []
        self.prompts: dict[str, list[str]] = {}

    def __call__(self, request) -> str:
        kind_ = request.schema_name if request.schema is not None else "turn"
        prompt = request.messages[-1].content
        self.asked.append(kind_)
        self.prompts.setdefault(kind_, []).append(prompt)
        if kind_ == "plans":
            item = self.rounds.pop(0) if self.rounds else []
            return item if isinstance(item, str) else json.dumps({"plans": item})
        if kind_ == "prediction":
            for words, answer in self.beliefs.items():
                if f" {words} " in f" {prompt} " or f"{words}?" in prompt or \
                        f"{words}." in prompt:
                    return json.dumps({"answer": answer})
            return json.dumps({"answer": "unknown"})
        if kind_ == "plan":
            item = self.direct.pop(0) if self.direct else []
            return item if isinstance(item, str) else json.dumps({"actions": item})
        return self.turns.pop(0) if self.turns else "Thought: I am done.\nAction: look"


# ----- as a dataset, and a model the harness can build from a spec ------------------------------
@dataclass(frozen=True)
class KitchenInstance:
    id: str
    dataset: str = "kitchen_valid"

    def problem(self, kind: str = "env"):
        from veriplan.envs.base import EnvTask

        return EnvTask("fakekitchen", self.id, split="valid", task_type="pick_heat_then_place")


def dataset(root=None):
    from veriplan.bench.datasets import Dataset

    ids = ("hot_apple/fridge", "hot_apple/cabinet", "hot_apple/counter")
    return Dataset("kitchen_valid", tuple(KitchenInstance(i) for i in ids), "kitchen-v1")


def answer(request) -> str:
    """Stateless: the three plans for every planning request; the ensemble
    says the apple is in the fridge (right in one kitchen of three)."""
    if request.schema_name == "plans":
        not_fridge = [("in", ("apple 1", "fridge 1"), False)]
        return json.dumps({"plans": [plan("fridge 1", score=0.6),
                                     plan("cabinet 1", score=0.5, stated=not_fridge),
                                     plan("countertop 1", score=0.4, stated=not_fridge)]})
    if request.schema_name == "prediction":
        yes = "apple 1 is in or on fridge 1" in request.messages[-1].content
        return json.dumps({"answer": "yes" if yes else "unknown"})
    return "Thought: look.\nAction: look"
