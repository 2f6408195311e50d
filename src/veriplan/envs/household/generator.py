"""Household games in the six ALFWorld task types, generated from the room
layouts of the ``alfworld`` wheel: one location per receptacle (openable ones
start closed), objects of the room's kinds placed at random (seeded) into
receptacles that can hold them, a goal of the task type. Each game keeps the
PDDL problem and a walkthrough from Fast Downward; a game whose problem Fast
Downward cannot solve is not kept.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import asdict, dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

# alfworld_data and game_domain live with the planner (which needs the domain);
# they are re-exported here, where they were first defined.
from veriplan.envs.household.planning import (
    DOMAIN_OTYPES,
    DOMAIN_RTYPES,
    alfworld_data,
    game_domain,
    plan_game,
)

__all__ = ["EVAL_COUNTS", "LAMPS", "LAMP_STANDS", "TASK_TYPES", "Game", "alfworld_data",
           "floorplans", "game_domain", "generate", "problem_text"]

TASK_TYPES = ("pick_and_place", "pick_clean_then_place", "pick_heat_then_place",
              "pick_cool_then_place", "look_at_obj_in_light", "pick_two_obj_and_place")
# The shape of ALFWorld's unseen evaluation split (134 games), by task type.
EVAL_COUNTS = {"pick_and_place": 24, "pick_clean_then_place": 31, "pick_heat_then_place": 23,
               "pick_cool_then_place": 21, "look_at_obj_in_light": 18,
               "pick_two_obj_and_place": 17}
LAMPS = ("DeskLamp", "FloorLamp")
# ALFWorld's receptacle table places no lamp; ours stand on furniture, where the
# agent can reach them to switch them on.
LAMP_STANDS = ("Desk", "SideTable", "Dresser", "Shelf", "CoffeeTable", "DiningTable",
               "TVStand", "ArmChair", "Sofa", "Bed")


@dataclass
class Game:
    id: str
    task_type: str
    floorplan: str
    seed: int
    task: str  # "put a clean apple in fridge."
    problem: str  # PDDL
    walkthrough: list[str] = field(default_factory=list)  # text commands
    plan: list[str] = field(default_factory=list)  # Fast Downward's PDDL actions

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1)

    @classmethod
    def from_json(cls, text: str) -> Game:
        return cls(**json.loads(text))


@cache
def _constants():
    import alfworld.gen.constants as C

    return C


@cache
def floorplans() -> dict[str, dict]:
    """floorplan -> {"objects": [types], "openable": [receptacle ids]}."""
    root = Path(str(resources.files("alfworld").joinpath("gen", "layouts")))
    out = {}
    for f in sorted(root.glob("FloorPlan*-objects.json")):
        name = f.name.split("-")[0]
        openable = root / f"{name}-openable.json"
        out[name] = {"objects": json.loads(f.read_text()),
                     "openable": sorted(json.loads(openable.read_text())) if openable.is_file()
                     else []}
    return out


def _word(t: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", t).lower().replace(" ", "")


def _scene(plan: dict, rng: random.Random):
    """Receptacles [(name, type)], objects [(name, type, receptacle)]."""
    C = _constants()
    counts: dict[str, int] = {}
    receptacles = []

    def add(t: str) -> str:
        counts[t] = counts.get(t, 0) + 1
        return f"{_word(t)}_{counts[t]}"

    for rid in plan["openable"]:
        t = rid.split("|")[0]
        if t in C.RECEPTACLES:
            receptacles.append((add(t), t))
    for t in sorted(set(plan["objects"])):
        if t in C.RECEPTACLES and t not in C.OPENABLE_CLASS_SET and \
                t not in C.MOVABLE_RECEPTACLES_SET:
            for _ in range(rng.randint(1, 2) if t in ("Shelf", "Drawer", "SideTable") else 1):
                receptacles.append((add(t), t))
    kinds = [t for t in sorted(set(plan["objects"]))
             if t in C.OBJECTS and t not in C.RECEPTACLES and t != "Floor"]
    objects = []
    for t in kinds:
        homes = [r for r, rt in receptacles if t in C.VAL_RECEPTACLE_OBJECTS.get(rt, ())
                 or (t in LAMPS and rt in LAMP_STANDS)]
        if not homes:
            continue
        for _ in range(rng.randint(1, 2)):
            objects.append((add(t), t, rng.choice(homes)))
    return receptacles, objects


def _goal(task_type: str, rng: random.Random, receptacles, objects):
    """(PDDL goal, task text, object type, receptacle type) or None when the
    room cannot host this task type."""
    C = _constants()
    acts = C.VAL_ACTION_OBJECTS
    rtypes = {rt for _, rt in receptacles}
    pickable = sorted({ot for _, ot, _ in objects if ot not in LAMPS})
    need = {"pick_clean_then_place": ("Cleanable", "SinkBasin"),
            "pick_heat_then_place": ("Heatable", "Microwave"),
            "pick_cool_then_place": ("Coolable", "Fridge")}
    if task_type == "look_at_obj_in_light":
        lamps = sorted({ot for _, ot, _ in objects if ot in LAMPS})
        if not lamps or not pickable:
            return None
        lamp, ot = rng.choice(lamps), rng.choice(pickable)
        goal = (f"(exists (?o - object ?l - object) (and (objectType ?o {ot}Type) "
                f"(objectType ?l {lamp}Type) (holds agent1 ?o) (isToggled ?l)))")
        return goal, f"look at {_word(ot)} under the {_word(lamp)}.", ot, lamp
    candidates = pickable
    if task_type in need:
        ability, station = need[task_type]
        if station not in rtypes:
            return None
        candidates = [t for t in pickable if t in acts[ability]]
    if task_type == "pick_two_obj_and_place":
        counts = {}
        for _, ot, _ in objects:
            counts[ot] = counts.get(ot, 0) + 1
        candidates = [t for t in candidates if counts.get(t, 0) >= 2]
    type_of = dict(receptacles)
    start = {(ot, type_of[r]) for _, ot, r in objects}  # (object type, receptacle type) at start
    pairs = [(ot, rt) for ot in candidates for rt in sorted(rtypes)
             if ot in C.VAL_RECEPTACLE_OBJECTS.get(rt, ())
             and (ot, rt) not in start  # the goal must not hold at the start
             and not (task_type in need and rt == need[task_type][1])]
    if not pairs:
        return None
    ot, rt = rng.choice(pairs)
    o, r = _word(ot), _word(rt)
    prop = {"pick_clean_then_place": ("(isClean ?o)", f"put a clean {o} in {r}."),
            "pick_heat_then_place": ("(isHot ?o)", f"put a hot {o} in {r}."),
            "pick_cool_then_place": ("(isCool ?o)", f"put a cool {o} in {r}.")}
    if task_type == "pick_two_obj_and_place":
        goal = (f"(exists (?o - object ?p - object ?r - receptacle) (and (not (= ?o ?p)) "
                f"(objectType ?o {ot}Type) (objectType ?p {ot}Type) (receptacleType ?r {rt}Type) "
                f"(inReceptacle ?o ?r) (inReceptacle ?p ?r)))")
        return goal, f"put two {o} in {r}.", ot, rt
    extra, text = prop.get(task_type, ("", f"put a {o} in {r}."))
    goal = (f"(exists (?o - object ?r - receptacle) (and (objectType ?o {ot}Type) "
            f"(receptacleType ?r {rt}Type) (inReceptacle ?o ?r) {extra}))")
    return goal, text, ot, rt


def problem_text(name: str, receptacles, objects, goal: str) -> str:
    C = _constants()
    acts = C.VAL_ACTION_OBJECTS
    rtypes = sorted({rt for _, rt in receptacles})
    otypes = sorted({ot for _, ot, _ in objects})
    locs = ["loc_0"] + [f"loc_{i + 1}" for i in range(len(receptacles))]
    decl = ["agent1 - agent"] + [f"{loc} - location" for loc in locs]
    decl += [f"{r} - receptacle" for r, _ in receptacles]
    decl += [f"{o} - object" for o, _, _ in objects]
    # the types alfred.pddl names in its actions are constants of game_domain()
    decl += [f"{t}Type - rtype" for t in rtypes if t not in DOMAIN_RTYPES]
    decl += [f"{t}Type - otype" for t in otypes if t not in DOMAIN_OTYPES]
    init = ["(atLocation agent1 loc_0)"]
    where = {}
    for i, (r, rt) in enumerate(receptacles):
        where[r] = f"loc_{i + 1}"
        init.append(f"(receptacleAtLocation {r} loc_{i + 1})")
        init.append(f"(receptacleType {r} {rt}Type)")
        if rt in C.OPENABLE_CLASS_SET:
            init.append(f"(openable {r})")
    for o, ot, r in objects:
        init += [f"(objectType {o} {ot}Type)", f"(inReceptacle {o} {r})",
                 f"(objectAtLocation {o} {where[r]})"]
        if ot not in LAMPS:
            init.append(f"(pickupable {o})")
        for ability, pred in (("Cleanable", "cleanable"), ("Heatable", "heatable"),
                              ("Coolable", "coolable"), ("Toggleable", "toggleable"),
                              ("Sliceable", "sliceable")):
            if ot in acts[ability]:
                init.append(f"({pred} {o})")
    for rt in rtypes:
        for ot in otypes:
            if ot in C.VAL_RECEPTACLE_OBJECTS.get(rt, ()):
                init.append(f"(canContain {rt}Type {ot}Type)")
    return (f"(define (problem {name})\n (:domain alfred)\n (:objects\n  "
            + "\n  ".join(decl) + "\n )\n (:init\n  (= (total-cost) 0)\n  "
            + "\n  ".join(init) + f"\n )\n (:goal {goal})\n (:metric minimize (total-cost))\n)\n")


def generate(task_type: str, seed: int, game_id: str, *, solve: bool = True) -> Game | None:
    """One game, or None when the seed's room cannot host the task type or
    Fast Downward finds no plan."""
    rng = random.Random(f"{task_type}:{seed}")
    plans = floorplans()
    order = sorted(plans)
    rng.shuffle(order)
    for name in order:  # the first room (in seeded order) that can host the task type
        receptacles, objects = _scene(plans[name], rng)
        made = _goal(task_type, rng, receptacles, objects) if objects else None
        if made is not None:
            break
    else:
        return None
    goal, task, _, _ = made
    game = Game(game_id, task_type, name, seed, task,
                problem_text(game_id.replace("/", "-"), receptacles, objects, goal))
    if solve:
        plan = plan_game(game)
        if plan is None:
            return None
        game.plan = plan
    return game
