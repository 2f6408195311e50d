"""ScienceWorld (``scienceworld==1.2.3``: its Java engine runs on the machine's
Java over loopback). Tasks are ``task-name:variation``.

Splits: ScienceWorld divides each task's variations into train, dev and test.
Following the setting of the WKM/AEC papers' ScienceWorld results (seen and
unseen variations of the same 30 tasks), ``seen`` is ScienceWorld's dev
variations and ``unseen`` its test variations; ``train`` is train. The split
table (:data:`VARIATIONS`, read from 1.2.3's engine; a test compares it) lets
task ids be listed and checked without starting Java.

The grounder asserts only what a text says in so many words: the room the
agent is in ("This room is called the kitchen."), the objects listed at the
top level of a room, what the inventory holds, and whether a named container
or door of the room is open or closed (from a look, from "The fridge is now
open." after opening it, or, for a door, from the engine's refusal of "go to R":
"The door is not open." says the door to R of the agent's room is closed).
Facts about containers and doors name the room they were seen in,
``(open X ROOM)``: a door is named from its room ("door to kitchen" from the
hallway and from outside are two doors), and a name several containers of a
room share (the kitchen's two drawers) is never asserted.
The two names of one door ("door to B" from A, "door to A" from B: one
engine object) are kept in step by the stores, not here: only the agent's
"open/close door to R" changes a door in 1.2.3 (its ``ActionOpenDoor`` and
``ActionCloseDoor``, and the open-doors simplification at load), and the
action model forgets the other side's fact then (``ScienceWorldActions.touched``;
the rule door-both-sides derives it again from the side observed). So a fact
of one side can go stale only by an open or close, which drops it; measured
on the engine: ``benchmarks/scienceworld_door_check.py sides``, and
``tests/envs/test_scienceworld.py``.
Everything else (what is inside what, temperatures, ...) is left unknown.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import threading
from collections.abc import Callable
from typing import Protocol

from veriplan.envs.actions import ROOMS, ModelledEnv
from veriplan.envs.base import Fact, QueryResult, UnknownTaskError
from veriplan.errors import ConfigError, EnvironmentDied, VeriplanError

JAVA_HINT = ("ScienceWorld needs Java (17 works): install it with "
             "'apt-get install default-jre-headless' (Debian/Ubuntu) or from adoptium.net, "
             "then make sure 'java' is on PATH")

_ROOM = re.compile(r"This (?:room|outside location) is called the ([\w ]+?)\.")
_LISTS = ("In it, you see:", "Here you see:")
_DOOR = re.compile(r"A door to the ([\w ]+?) \(that is (open|closed)\)")
_CONTAINER = re.compile(r"The ([\w ]+?) door is (open|closed)")
_NOW = re.compile(r"^The ([\w ]+?) is now (open|closed)\.")
_MOVED = re.compile(r"^You move to the ([\w ]+?)\.")
_TO = re.compile(r"^You move the ([\w ]+?) to the ([\w ]+?)\.")
_INVENTORY = "In your inventory, you see:"
# The engine's refusal of "go to R" when the door it would take is closed. 1.2.3 looks
# through the portals of the agent's room for the first whose other side is R: closed,
# it answers "The door is not open." (naming no door); locked, "The door is locked.";
# none, "It's not clear how to get there from here." Every portal of a room is a door
# and no room has two doors to the same room (the house is the same in every task), so
# the refusal names the door to R of the agent's room.
_NOT_OPEN = "The door is not open."

# task -> (variations, train variations, seen variations) in scienceworld 1.2.3: train
# is 0..train-1, seen (dev) the next ``seen``, unseen (test) the rest.
VARIATIONS: dict[str, tuple[int, int, int]] = {
    "boil": (30, 14, 7),
    "change-the-state-of-matter-of": (30, 14, 7),
    "chemistry-mix": (32, 16, 8),
    "chemistry-mix-paint-secondary-color": (36, 18, 9),
    "chemistry-mix-paint-tertiary-color": (36, 18, 9),
    "find-animal": (300, 150, 75),
    "find-living-thing": (300, 150, 75),
    "find-non-living-thing": (300, 150, 75),
    "find-plant": (300, 150, 75),
    "freeze": (30, 14, 7),
    "grow-fruit": (126, 62, 31),
    "grow-plant": (126, 62, 31),
    "identify-life-stages-1": (14, 6, 3),
    "identify-life-stages-2": (10, 4, 2),
    "inclined-plane-determine-angle": (168, 84, 42),
    "inclined-plane-friction-named-surfaces": (1386, 692, 346),
    "inclined-plane-friction-unnamed-surfaces": (162, 80, 40),
    "lifespan-longest-lived": (125, 62, 31),
    "lifespan-longest-lived-then-shortest-lived": (125, 62, 31),
    "lifespan-shortest-lived": (125, 62, 31),
    "measure-melting-point-known-substance": (436, 218, 109),
    "measure-melting-point-unknown-substance": (300, 150, 75),
    "melt": (30, 14, 7),
    "mendelian-genetics-known-plant": (120, 60, 30),
    "mendelian-genetics-unknown-plant": (480, 240, 120),
    "power-component": (20, 10, 5),
    "power-component-renewable-vs-nonrenewable-energy": (20, 10, 5),
    "test-conductivity": (900, 450, 225),
    "test-conductivity-of-unknown-substances": (600, 300, 150),
    "use-thermometer": (540, 270, 135),
}
SPLITS = ("train", "seen", "unseen")

# Observers of this process's engines, called as ``observer(env, action, observation)``
# after each reset (``action`` None: ``env.task_id`` was just loaded, gold path and all)
# and each step. A controlled test model reads its truth channel from them
# (veriplan.llm.backends.controlled_aec_scienceworld); nothing else uses them.
OBSERVERS: list[Callable[[ScienceWorld, str | None, str], None]] = []


def variations(task: str, split: str) -> range:
    """The variation numbers of ``task`` in ``split`` (no Java needed)."""
    if split not in SPLITS:
        raise ConfigError(f"unknown ScienceWorld split {split!r}: use train, seen or unseen")
    total, train, seen = VARIATIONS[task]
    return {"train": range(0, train), "seen": range(train, train + seen),
            "unseen": range(train + seen, total)}[split]


def split_ids(split: str) -> list[str]:
    """Task ids of a split, task by task (no Java needed)."""
    return [f"{task}:{v}" for task in VARIATIONS for v in variations(task, split)]


def check_task_id(task_id: str) -> tuple[str, int]:
    """(task, variation) of a valid id, else an :class:`UnknownTaskError`."""
    task, _, var = task_id.rpartition(":")
    hint = ("list the valid ids with veriplan.envs.scienceworld.split_ids('unseen') (or "
            "'seen', 'train'), or the instances of the scienceworld_seen / "
            "scienceworld_unseen datasets")
    if task not in VARIATIONS or not var.isdigit():
        raise UnknownTaskError(f"unknown ScienceWorld task {task_id!r}: use TASK:VARIATION with "
                               f"TASK one of {', '.join(VARIATIONS)}; {hint}")
    if int(var) >= VARIATIONS[task][0]:
        raise UnknownTaskError(f"unknown ScienceWorld task {task_id!r}: {task} has variations "
                               f"0..{VARIATIONS[task][0] - 1}; {hint}")
    return task, int(var)


def _name(line: str) -> str | None:
    """The object a top-level listing line names: 'a chair. On the chair is: ...'
    -> 'chair'; 'a substance called air' -> 'air'; 'the agent' -> None."""
    head = line.strip().split(". ")[0].split(", ")[0].rstrip(".")
    head = re.sub(r"\s*\(.*$", "", head)
    head = re.sub(r"^(a substance called|an|a|the)\s+", "", head, flags=re.I)
    head = head.split(" titled ")[0]  # "A recipe titled instructions to ..." -> recipe
    return None if head in ("", "agent") else head


class _JavaDoor(Protocol):
    """A door object of the engine (a Java object reached through the wrapper's
    bridge): only its open state is read after the door is found."""

    def getOpenClosedStr(self) -> str: ...  # noqa: N802 - the engine's method name


class ScienceWorld(ModelledEnv):
    name = "scienceworld"
    _start_lock = threading.Lock()  # the Java gateway picks a free port at start

    def __init__(self, max_steps: int = 100, simplifications: str = "") -> None:
        super().__init__(max_steps)
        if shutil.which("java") is None:
            raise VeriplanError(f"Java was not found. {JAVA_HINT}")
        try:
            from scienceworld import ScienceWorldEnv
        except ImportError:
            raise VeriplanError("the scienceworld package is not installed: pip install "
                                "'veriplan[envs]' (scienceworld==1.2.3)") from None
        with self._start_lock:
            self._env = ScienceWorldEnv("", envStepLimit=10**6)
        self.simplifications = simplifications
        self._room: str | None = None
        self._shared: set[tuple[str, str]] = set()  # (name, room) of several containers
        self._names: set[str] = set()  # every name the parser accepts for some object
        self._names_at = -1  # the step they were read at
        self.score = 0.0  # the engine's score after the last step (0 at the reset)
        self._choosing = False  # the engine waits for the number of an action
        self._gold_of: str | None = None  # the task loaded with its gold path
        self._door_sides: list[tuple[_JavaDoor, tuple[str, str]]] | None = None  # true_doors

    @contextlib.contextmanager
    def _java(self):
        """Calls into the engine: a Java process that is gone is EnvironmentDied."""
        try:
            yield
        except Exception as e:
            proc = getattr(getattr(self._env, "_gateway", None), "java_process", None)
            gone = proc is not None and proc.poll() is not None
            if gone or _network_error(e):
                code = proc.poll() if proc is not None else None
                raise EnvironmentDied(
                    f"ScienceWorld's Java process stopped answering during task "
                    f"{self.task_id!r} ({type(e).__name__}: {str(e)[:200]}; exit status "
                    f"{code})") from e
            raise

    # ----- tasks --------------------------------------------------------------------
    def tasks(self) -> list[str]:
        return list(VARIATIONS)

    def split(self, name: str) -> list[str]:
        """Task ids of a split: train, seen (dev) or unseen (test)."""
        return split_ids(name)

    def _load(self, task_id: str, gold: bool = False) -> None:
        task, var = check_task_id(task_id)
        self._gold_of = None
        self._door_sides = None  # the doors of the world loaded (true_doors reads them)
        with self._java():
            self._env.load(task, var, self.simplifications, generateGoldPath=gold)
        self._gold_of = task_id if gold else None

    def gold_path(self, task_id: str, *, loaded: bool = False) -> list[str]:
        """The engine's gold path for ``task_id``, from a fresh load; with
        ``loaded``, the gold path of the world the last ``reset(task_id)``
        loaded, without loading again. A variation's world is not the same from
        load to load (which animals are outside, say, and the path with them:
        the engine draws them from state its earlier calls left), so the path
        to replay in the world being played is that one."""
        if not loaded or self._gold_of != task_id:
            if loaded:
                raise VeriplanError(f"gold_path({task_id!r}, loaded=True): the engine has not "
                                    f"loaded {task_id!r}; reset({task_id!r}) first")
            self._load(task_id, gold=True)
        with self._java():
            return list(self._env.get_gold_action_sequence())

    # ----- the interface --------------------------------------------------------------
    def _reset(self, task_id: str, seed: int) -> str:
        # A variation fixes the task's parameters; the rest of its world (which animals,
        # say) the engine draws at each load from state its earlier calls left, so the
        # same id gives the same world only after the same calls (see gold_path).
        self._load(task_id, gold=True)
        with self._java():
            # ScienceWorldEnv.reset but its server.reset(): the engine's reset is a load
            # with the same arguments (gold path and all), and the task was just loaded
            self._env.lastStepScore = 0
            self._engine_step("look around")
            self.task_description = self._env.get_task_description()
            self._shared = self._shared_names()
            self._room = None
            self.score = 0.0
            self._choosing = False
            first = self._env.look()
        for observe in OBSERVERS:
            observe(self, None, first)
        return first

    def _lut(self) -> dict:
        import json

        raw = self._env.get_all_object_ids_types_referents_LUTJSON()
        lut = json.loads(raw) if isinstance(raw, str) else raw
        self._names = {n for v in lut.values() for n in v.get("referents", [])}
        self._names_at = self.steps
        return lut

    def _is_name(self, name: str) -> bool:
        """Whether the parser accepts ``name`` for some object: listings describe
        ("a white pillow" is the object called "pillow"), and a description that
        is no name is not asserted. Names are read again when the world may have
        made new things (once a step)."""
        if name not in self._names and self._names_at != self.steps:
            with self._java():
                self._lut()
        return name in self._names

    def _shared_names(self) -> set[tuple[str, str]]:
        """(name, room) pairs that more than one closable container of the room
        answers to (the house's layout: the kitchen has two drawers)."""
        lut = self._lut()
        counts: dict[tuple[str, str], int] = {}

        def walk(node, room: str) -> None:
            c = node.get("propContainer")
            if c and c.get("isClosable"):
                names = {node["name"]} | set(lut.get(str(node.get("uuid")), {}).get("referents",
                                                                                      []))
                for n in names:
                    counts[(n, room)] = counts.get((n, room), 0) + 1
            for x in node.get("contents", {}).values():
                walk(x, room)

        for room in self._env.getObjectTree().get("contents", {}).values():
            walk(room, room["name"])
        return {k for k, n in counts.items() if n > 1}

    def _step(self, action: str) -> tuple[str, float, bool, dict]:
        with self._java():
            if self._choosing and not action.strip().isdigit():
                # The engine asked which of several actions was meant ("Ambiguous
                # request: ...") and would take this input as the number of one of
                # them; an answer that is not a number cancels the question first (a
                # blank answer), so that the action is read as an action.
                self._engine_step("")
            obs, reward, done, score = self._engine_step(action)
            self._choosing = obs.startswith("Ambiguous request:")
        self.score = float(score)
        for observe in OBSERVERS:
            observe(self, action, obs)
        won = bool(done and score >= 100)
        return obs, float(reward), bool(done), {"score": score, "won": won}

    def _engine_step(self, action: str) -> tuple[str, int, bool, int]:
        """One engine step: (observation, reward, completed, score), as
        ``ScienceWorldEnv.step`` computes them, without the extras of its info
        dict (a free look, the inventory, the task text, and the valid actions
        read one by one over the gateway: most of a step's time, and none of it
        used here; ``valid_actions`` reads them when they are wanted). Its step
        limit (``envStepLimit``, 10**6 here) is never reached: an episode's
        budget is ``max_steps``."""
        env = self._env
        obs = env.server.step(action)
        score = int(round(100 * env.server.getScore()))
        done = bool(env.server.getCompleted()) or score < 0
        reward = score - env.lastStepScore
        env.lastStepScore = score
        return obs, reward, done, score

    def valid_actions(self) -> list[str]:
        with self._java():
            return list(self._env.get_valid_action_object_combinations())

    def ground(self, text: str, action: str | None = None) -> set[Fact]:
        """Facts the text states. A room description ("This room is called the
        kitchen. In it, you see: ...") is about the room it names, which is the
        agent's room only after "look around" (or at the start): "look at kitchen"
        describes the kitchen from next door."""
        facts: set[Fact] = set()
        described = _ROOM.search(text)
        moved = _MOVED.search(text)
        if moved or (described and (action is None or action.strip() == "look around")):
            self._room = (moved or described).group(1)  # type: ignore[union-attr]
            facts.add(Fact("at", ("agent", self._room)))
        room = described.group(1) if described else self._room
        if described:
            listing = next((text.split(h, 1)[1] for h in _LISTS if h in text), "")
            listing = listing.split("You also see:", 1)[0]
            facts |= {Fact("in", (n, room)) for n in _listed(listing) if self._is_name(n)}
        if _INVENTORY in text:
            facts |= {Fact("in", (n, "inventory"))
                      for n in _listed(text.split(_INVENTORY, 1)[1]) if self._is_name(n)}
        m = _TO.search(text)
        if m and (m.group(2) == "inventory" or m.group(2) in ROOMS) and self._is_name(m.group(1)):
            facts.add(Fact("in", (m.group(1), m.group(2))))
        if room is None:
            return facts
        if action is not None and self._room and text.strip() == _NOT_OPEN:
            before, go, target = action.strip().partition("go to ")
            if go and not before and target in ROOMS and target != self._room:
                facts.add(Fact("open", (f"door to {target}", self._room), False))
        for door, state in _DOOR.findall(text):
            facts.add(Fact("open", (f"door to {door}", room), state == "open"))
        for thing, state in _CONTAINER.findall(text):
            if (thing, room) not in self._shared:
                facts.add(Fact("open", (thing, room), state == "open"))
        m = _NOW.search(text)
        if m and action and action.startswith(("open ", "close ")) and self._room:
            # "The door is now open." after "open door to kitchen" names the door by
            # the action's words; "drawer" after "open drawer in cupboard" could be
            # any drawer, so only an exact match (or a door) is asserted.
            thing, here = action.split(" ", 1)[1].strip(), self._room
            if (thing == m.group(1) != "door" and (thing, here) not in self._shared) or \
                    (m.group(1) == "door" and thing.startswith("door to ")):
                facts.add(Fact("open", (thing, here), m.group(2) == "open"))
        return facts

    def query(self, pred: str, *args: str) -> QueryResult:
        """A query macro-action (real steps from the budget); the answer is what
        the text supports, else None:

        - ``open X [ROOM]`` (ROOM: the current room): look at X (1 step);
        - ``in X ROOM`` for the current room: look around (1 step); for another
          room the engine lets the agent look at from here (``look at ROOM`` is
          admissible: the rooms next door, even through a closed door): look at
          ROOM (1 step; the agent stays); ``in X inventory``: inventory (1
          step). True when X is listed; a name not listed may still name
          something there (referents such as "picture of a farm", unlisted
          terminals), so absence is unknown, not False;
        - ``at agent ROOM``: look around (1 step).

        Anything else is not queryable here (None, no steps)."""
        args = tuple(a.strip() for a in args)
        here = self._room
        if pred == "open" and len(args) == 1 and here:
            args = (args[0], here)
        if pred == "at" and len(args) == 1:
            args = ("agent", args[0])
        if pred == "open" and len(args) == 2 and args[1] == here and \
                (args[0], here) not in self._shared:
            action = f"look at {args[0]}"
        elif pred == "in" and len(args) == 2 and args[1] == "inventory":
            action = "inventory"
        elif (pred == "in" and len(args) == 2 and args[1] == here) or \
                (pred == "at" and len(args) == 2 and args[0] == "agent"):
            action = "look around"
        elif pred == "in" and len(args) == 2 and args[1] in ROOMS and here and \
                self.steps < self.max_steps and f"look at {args[1]}" in self.valid_actions():
            action = f"look at {args[1]}"
        else:
            return QueryResult(None, frozenset(), 0)
        if self.steps >= self.max_steps:
            return QueryResult(None, frozenset(), 0)
        facts = set(self.step(action).observation.facts)
        value: bool | None = None
        if pred == "in":
            value = True if Fact("in", args) in facts else None
        elif pred == "at":
            rooms = {f.args[1] for f in facts if f.pred == "at" and f.value}
            value = (args[1] in rooms) if len(rooms) == 1 else None
        else:
            known = {f.value for f in facts if f.pred == "open" and f.args == args}
            value = known.pop() if len(known) == 1 else None
        if value is not None:
            answer = Fact(pred, args, value)
            facts = {f for f in facts if (f.pred, f.args) != (pred, args)} | {answer}
            self.grounded = frozenset(
                {f for f in self.grounded if (f.pred, f.args) != (pred, args)} | {answer})
        return QueryResult(value, frozenset(facts), 1, (action,))

    def true_facts(self) -> set[Fact]:
        """From the object tree: where the agent is, the top-level objects of
        every room and of the inventory, and the open state of every closable
        container with the room it is in (doors are not in the tree, so door
        facts cannot be checked here). An object counts under its tree name and
        every referent the parser accepts for it ("inclined plane H" is the
        tree's "inclined plane" with uuid 11838)."""
        import json

        with self._java():
            raw = self._env.get_all_object_ids_types_referents_LUTJSON()
            tree = self._env.getObjectTree()
        lut = json.loads(raw) if isinstance(raw, str) else raw
        aliases = {uuid: set(v.get("referents", [])) for uuid, v in lut.items()}

        def names(node) -> set[str]:
            return {node["name"]} | aliases.get(str(node.get("uuid")), set())

        facts: set[Fact] = set()

        def walk(node, room: str) -> None:
            c = node.get("propContainer")
            if c and c.get("isClosable"):
                facts.update(Fact("open", (n, room), bool(c.get("isOpen"))) for n in names(node))
            for x in node.get("contents", {}).values():
                walk(x, room)

        for room in tree.get("contents", {}).values():
            for child in room.get("contents", {}).values():
                if child["name"] == "agent":
                    facts.add(Fact("at", ("agent", room["name"])))
                    for part in child.get("contents", {}).values():
                        if part["name"] == "inventory":
                            for item in part.get("contents", {}).values():
                                facts |= {Fact("in", (n, "inventory")) for n in names(item)}
                facts |= {Fact("in", (n, room["name"])) for n in names(child)}
            walk(room, room["name"])
        return facts

    def true_doors(self) -> set[Fact]:
        """The open state of every door, from the engine's objects (the object
        tree leaves doors out): ``(open "door to R" ROOM)`` for each door of
        each room, R the room on its other side, as the grounder names them.
        Which doors the loaded world has is read once per load (a door is
        neither made nor removed in an episode); each call reads their states
        (one Java call a door side; benchmarks/scienceworld_truth_speed.py)."""
        sides = getattr(self, "_door_sides", None)
        if sides is None:
            sides = self._door_sides = self._find_doors()
        with self._java():
            return {Fact("open", names, door.getOpenClosedStr() == "open")
                    for door, names in sides}

    def _find_doors(self) -> list[tuple[_JavaDoor, tuple[str, str]]]:
        """Each door of each room of the loaded world, with the fact's
        arguments as the grounder names them ("door to R", ROOM)."""
        with self._java():
            here = self._env.server.agent().get().getContainer().get()
            while not here.getClass().getName().startswith("scienceworld.objects.location."):
                here = here.getContainer().get()  # the agent's room, then the world
            world = here.getContainer().get()
            sides: list[tuple[_JavaDoor, tuple[str, str]]] = []
            rooms = world.getContainedObjects(True).toList()
            for i in range(rooms.length()):
                room = rooms.apply(i)
                if not room.getClass().getName().startswith("scienceworld.objects.location."):
                    continue
                doors = room.getPortals(True).toList()
                for j in range(doors.length()):
                    door = doors.apply(j)
                    if door.name() != "door":
                        continue
                    other = door.getConnectsTo(room)  # a Java call: made once
                    if not other.isEmpty():
                        sides.append((door, (f"door to {other.get().name()}", room.name())))
        return sides

    def contradicted(self, facts: set[Fact] | frozenset[Fact],
                     truth: set[Fact] | None = None) -> list[Fact]:
        """Asserted facts the simulator's state (``truth``: ``true_facts()``)
        contradicts; checkable kinds only: door states are checked only where
        ``truth`` holds them (``true_facts() | true_doors()``: the object tree
        has none), parts such as a sink's drain are not in the tree, nor what
        the agent focused on; an "in" fact names one of possibly several
        objects, so only True ones are checked."""
        truth = self.true_facts() if truth is None else truth
        out = []
        for f in facts:
            if f.pred == "focus":
                continue  # a symbolic effect of "focus on X"; the tree does not hold it
            if f.pred == "open":
                if Fact("open", f.args, not f.value) in truth and \
                        Fact("open", f.args, f.value) not in truth:
                    out.append(f)  # (no state in the tree: a part, such as a drain)
            elif f.pred == "at":
                if (Fact("at", f.args) in truth) != f.value:
                    out.append(f)
            elif f.value and f not in truth:
                out.append(f)
        return out

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the gateway may already be gone
            self._env.close()
        # ScienceWorldEnv.__del__ closes again: once is enough (a second close of a
        # dead gateway raises inside garbage collection)
        self._env.close = lambda: None


def _listed(listing: str) -> list[str]:
    """The names of a listing's top-level lines ("\\ta chair. On the chair is: ...")."""
    out = []
    for line in listing.split("\n"):
        if line.startswith("\t") and not line.startswith("\t\t"):
            name = _name(line)
            if name:
                out.append(name)
    return out


def _network_error(e: BaseException) -> bool:
    try:
        from py4j.protocol import Py4JNetworkError
    except ImportError:  # pragma: no cover - py4j comes with scienceworld
        return isinstance(e, ConnectionError | EOFError)
    return isinstance(e, Py4JNetworkError | ConnectionError | EOFError)
