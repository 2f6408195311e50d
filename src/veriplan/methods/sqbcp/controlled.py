"""Controlled test models: backends whose errors are known and seeded, so a
method's claims can be tested where no strong model can run.

``--backend controlled --model sqbcp:p_hidden=0.3,acc=0.5,seed=0`` answers
hidden-precondition prompts (SQ-BCP's forward, bridge and backward requests
and the Direct, CoT, ToT, ReAct and Self-Ask baselines') as a planner that
knows the task's procedure but not the user's hidden facts:

- it proposes the reference plan's next step (SQ-BCP: as K hypotheses, each
  one sample of the same model; baselines: the whole plan, or one step per
  ReAct turn);
- each hidden precondition a step involves that the prompt does not state
  (neither revealed nor answered) is, with probability ``p_hidden``,
  *omitted*: the model assumes it holds, lists no precondition or resource for
  it, never asks about it, and writes the step as the unadapted procedure does
  (so it uses an item the user may lack: on the natural-language families the
  ingredient or tool the reference replaces with a substitute; on
  hidden-fact PDDL one argument swapped for another object);
- a precondition it does not omit is listed as unknown (SQ-BCP) or asked
  about (Self-Ask, ReAct, and Direct/CoT/ToT when the prompt invites questions);
  where it may not ask, it guesses the fact, right with probability ``acc``;
- the SAT/VIOL/UNK label it claims for a listed precondition is the truth with
  probability ``acc`` (SQ-BCP must ignore it);
- it never proposes a bridge or a backward step (``{"hypotheses": []}``), and
  votes for the first ToT candidate.
- Thoughts of Search (``hidden-tos``, hidden-fact PDDL only): it asks the
  questions it would ask before a plan (the same draws), then writes
  ``initial_state``, ``successor_states`` and ``is_goal`` as code
  (:func:`tos_code`): the actions as the prompt's action lines state them, the
  goal line's atoms, and a start made of what the procedure needs (the atoms
  the reference plan reads before a step adds them) and the atoms the prompt
  states (known facts, answers) as holding, less those it states do not hold.
  What ``p_hidden`` does there: each hidden fact the prompt does not state and
  some step involves is relied on wrongly when, at its first such step, it is
  omitted (probability ``p_hidden``) or, where the model may not ask, guessed
  wrong (probability 1 - ``acc``): the very draws that make that step wrong in
  the other answers. Such a fact is *confused* in the start as a step is: it is
  replaced by the same fact with one argument swapped for another object
  (:meth:`Planner.confused`). So p changes the start the search plans from,
  never the code's actions or goal test; with p = 0 and the oracle round (or
  acc = 1) every start atom is true.

Every draw is seeded by (seed, task, step, precondition, sample): the same
model errs on the same steps whichever method calls it, so methods compared
on the same tasks are paired.

The truth channel. The backend reads the task's truth (reference plan,
latent preconditions with their truth and substitutes, objects) from the
hidden-task datasets through :class:`Truth`, which picks the task one of two
ways (``tasks=`` gives the tasks directly, for tests):

- *bound* (the benchmark harness): the backend is
  :class:`~veriplan.llm.binding.TaskBound`. Before a unit's method runs, the
  harness binds the unit's task (dataset name and instance id,
  :class:`~veriplan.llm.binding.TaskRef`) for that unit's thread of control,
  and clears it when the method returns or raises. While bound, every answer
  is about exactly that task (no matching; a prompt whose "Goal:" line is not
  that task's is refused with a :class:`BackendError`). This is how units
  on tasks whose prompts are word for word the same (how-to h007-v0 and -v1;
  hidden-fact PDDL blocksworld/instance-14 and -255, -282, -319 until a fact
  is learned) each get their own task's truth. The method under test never
  sees the binding: it sends the same prompts either way. The harness runs
  a bound backend's units without the response cache (its key is the
  request, and the same request has a different answer on another task).
- *unbound* (``veriplan`` by hand, or code that binds nothing): the prompt's
  "Goal:" line (on hidden-fact PDDL it names the objects too) picks the
  candidates, and what the prompt states picks among them. On hidden-fact
  PDDL a candidate must agree with every fact the prompt states (its known
  facts listed, each stated fact and each answer true in its initial state,
  after the listed planned steps); on the natural-language families the
  known facts come first, in order. A prompt that several tasks with
  different truths fit equally is refused (:class:`AmbiguousTaskError`): the
  model cannot know which one it plans for (bind the task instead).

These are the only channels: the truth reaches the method under test only as
the steps and questions a model with these error rates would write; no
answer names a hidden fact's truth, an id, or the oracle's wording.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, TypedDict

from veriplan.core.problems import Dataset
from veriplan.errors import BackendError, ConfigError, DataError
from veriplan.llm.binding import TaskBinding, TaskRef
from veriplan.llm.controlled import ControlledModel
from veriplan.llm.types import LLMRequest

if TYPE_CHECKING:
    from veriplan.domains.hidden.task import HiddenTask, Latent

DATASETS = ("sqbcp_recipes", "sqbcp_howto", "sqbcp_pddl_hidden")


@dataclass(frozen=True)
class Settings:
    """The controlled model's error rates (``family:key=value,...``)."""

    family: str = "sqbcp"
    p_hidden: float = 0.3  # a hidden precondition omitted (assumed to hold)
    acc: float = 0.5  # a guess about an unstated fact, and a claimed label, is right
    seed: int = 0
    # What an omission drops: "all" (the precondition and the item as a resource the step
    # uses up) or "pre" (the precondition only: the step still lists the item it uses up,
    # so a verifier that checks resources can see it).
    omit: str = "all"

    @classmethod
    def parse(cls, spec: str) -> Settings:
        family, _, rest = (spec or "sqbcp").partition(":")
        values: dict[str, float | str] = {}
        for part in filter(None, (p.strip() for p in rest.split(","))):
            k, sep, v = part.partition("=")
            if not sep or k not in ("p_hidden", "acc", "seed", "omit"):
                raise ConfigError(f"controlled model {spec!r}: unknown setting {part!r} "
                                  "(p_hidden, acc, seed, omit)")
            values[k] = int(v) if k == "seed" else v if k == "omit" else float(v)
        s = cls(family or "sqbcp", **values)
        if s.family != "sqbcp":
            raise ConfigError(f"controlled model family {s.family!r}: only 'sqbcp' here")
        if s.omit not in ("all", "pre"):
            raise ConfigError(f"controlled model {spec!r}: omit is 'all' or 'pre'")
        if not (0 <= s.p_hidden <= 1 and 0 <= s.acc <= 1):
            raise ConfigError(f"controlled model {spec!r}: rates must be in [0, 1]")
        return s


def draw(settings: Settings, *parts: object) -> float:
    """A uniform draw in [0, 1) fixed by the seed and ``parts``."""
    return random.Random(":".join(map(str, (settings.seed, *parts)))).random()


@lru_cache(maxsize=8)
def _hidden(name: str, root: str) -> Dataset:
    from veriplan.domains.hidden import datasets as hidden

    factory: Callable[[Path], Dataset] = getattr(hidden, name)
    return factory(Path(root))


def load_hidden(name: str, data_dir: str | None = None) -> Dataset:
    """One of the hidden-precondition families (:data:`DATASETS`), read as the
    benchmark harness reads it: hidden-fact PDDL from the data directory
    (``data_dir``, else ``VERIPLAN_DATA``), recipes and how-to projects from
    the package's own files (cached per family and directory)."""
    if name not in DATASETS:
        raise BackendError(f"controlled backend: dataset {name!r} is not a hidden-precondition "
                           f"family (the controlled sqbcp model plans only on "
                           f"{', '.join(DATASETS)})")
    if not name.endswith("pddl_hidden"):
        return _hidden(name, "")
    root = data_dir or os.environ.get("VERIPLAN_DATA")
    if not root:
        raise DataError("no data directory: pass --data-dir or set VERIPLAN_DATA "
                        "(the folder holding planbench/ and autotos/)")
    path = Path(root).expanduser()
    if not path.is_dir():
        raise DataError(f"data directory {path} does not exist")
    return _hidden(name, str(path))


class AmbiguousTaskError(BackendError):
    """The prompt fits several hidden tasks whose truths differ (same goal
    line, nothing stated that only one of them explains): the controlled model
    cannot know which one it plans for."""


class Truth:
    """The explicit truth channel: the bound task (:meth:`bound`), else hidden
    tasks by their prompt's goal line, then by what the prompt states
    (:meth:`find`; see the module docstring)."""

    def __init__(self, tasks: Iterable[HiddenTask] | None = None,
                 datasets: Iterable[str] = DATASETS, data_dir: str | None = None,
                 limit: int | None = None) -> None:
        self._given = list(tasks) if tasks is not None else None
        self._limit = limit  # only each dataset's first ``limit`` tasks (a sweep's limit)
        self._datasets = [d for d in datasets if d]
        self._data_dir = data_dir
        self._by_goal: dict[str, list[HiddenTask]] = {}
        self._loaded: set[str] = set()
        self._by_ref: dict[TaskRef, HiddenTask] = {}
        self._lock = threading.Lock()
        if self._given is not None:
            self._index(self._given)

    def _index(self, tasks: Iterable[HiddenTask]) -> None:
        for t in tasks:
            self._by_goal.setdefault(t.goal.strip(), []).append(t)

    def _load(self, name: str) -> None:
        ds = load_hidden(name, self._data_dir)
        self._index(i.problem() for i in list(ds.instances)[:self._limit])

    def bound(self, ref: TaskRef, prompt: str) -> HiddenTask:
        """The task ``ref`` names (the harness's binding), whatever else has
        the same prompt; the prompt's goal line must be that task's."""
        with self._lock:
            task = self._by_ref.get(ref)
            if task is None:
                task = self._by_ref[ref] = self._lookup(ref)
        goal = _goal_line(prompt)
        if goal != task.goal.strip():
            raise BackendError(f"controlled backend: bound to {ref}, but the prompt's goal "
                               f"({goal[:80]!r}) is not that task's ({task.goal[:80]!r}): "
                               "the harness bound the wrong task, or the method changed "
                               "the goal line")
        return task

    def _lookup(self, ref: TaskRef) -> HiddenTask:
        if self._given is not None:
            found = [t for t in self._given if t.id == ref.instance]
            if not found:
                raise BackendError(f"controlled backend: bound to {ref}, which is not "
                                   "among the tasks it was given (tasks=)")
            return found[0]
        if ref.dataset not in DATASETS:
            raise BackendError(f"controlled backend: bound to {ref}, which is not a "
                               "hidden-precondition task (the controlled sqbcp model plans "
                               f"only on {', '.join(DATASETS)})")
        ds = load_hidden(ref.dataset, self._data_dir)
        inst = next((i for i in ds.instances if i.id == ref.instance), None)
        if inst is None:
            raise BackendError(f"controlled backend: bound to {ref}, but dataset "
                               f"{ref.dataset} has no instance {ref.instance!r}")
        task = inst.problem()
        if not hasattr(task, "latent") or not hasattr(task, "reference"):
            raise BackendError(f"controlled backend: bound to {ref}, which is not a "
                               "hidden-precondition task (the controlled sqbcp model plans "
                               f"only on {', '.join(DATASETS)})")
        return task

    def find(self, prompt: str) -> HiddenTask:
        goal = _goal_line(prompt)
        with self._lock:
            if goal not in self._by_goal and self._given is None:
                pddl = "Actions (" in prompt
                for name in self._datasets:
                    if name not in self._loaded and (name.endswith("pddl_hidden") == pddl):
                        self._load(name)  # a failed load raises again on the next prompt
                        self._loaded.add(name)
                    if goal in self._by_goal:
                        break
            found = self._by_goal.get(goal, [])
        if not found:
            raise BackendError(f"controlled backend: no task with the goal {goal!r}")
        if len(found) == 1:
            return found[0]
        best = _best_fits(found, prompt)
        if len({_truth_of(t) for t in best}) > 1:
            ids = ", ".join(t.id for t in best)
            raise AmbiguousTaskError(
                f"controlled backend: the prompt fits {len(best)} tasks equally ({ids}): "
                f"the same goal line ({goal[:80]!r}) and nothing stated that only one of "
                "them explains, but their hidden facts differ, so the controlled model "
                "cannot know which to plan for; bind the task (the benchmark harness "
                "does: veriplan bench; in code, backend.bind_task(TaskRef(dataset, id))), "
                "or load fewer tasks (the sweep's `limit`, or tasks= in code) so that "
                "one of them is not a candidate")
        return best[0]


def _goal_line(prompt: str) -> str:
    m = re.search(r"^Goal: (.*)$", prompt, re.M)
    if m is None:
        raise BackendError("controlled backend: the prompt has no 'Goal:' line")
    return m.group(1).strip()


def _best_fits(found: list[HiddenTask], prompt: str) -> list[HiddenTask]:
    """The candidates that fit the prompt best (in dataset order)."""
    if all(_is_pddl(t) for t in found):
        ev = _PddlEvidence.of(prompt)
        score = {t.id: ev.misfit(t) for t in found}
    else:
        ordered = [line.lower() for line in _fact_lines(prompt)]
        score = {t.id: (-_fit(t, ordered),) for t in found}
    low = min(score.values())
    return [t for t in found if score[t.id] == low]


def _truth_of(t: HiddenTask) -> tuple[object, ...]:
    """What the controlled model's answers depend on, beyond the prompt."""
    world = t.payload.get("closed_world") if t.payload else None
    return (t.reference, tuple((p.subject, p.holds, p.substitutes) for p in t.latent),
            tuple(sorted(world[0])) if world else ())


def _is_pddl(t: HiddenTask) -> bool:
    return bool(t.payload and t.payload.get("closed_world"))


_YES = re.compile(r"\bYes: (.+?)\.(?=\s|$)", re.M)
_NO = re.compile(r"\bNo: it is not so that (.+?)\.(?=\s|$)", re.M)


@dataclass(frozen=True)
class _PddlEvidence:
    """What a hidden-fact PDDL prompt states: its fact lines (the state after
    the planned steps it lists, when it lists them: SQ-BCP's forward prompt),
    those steps, and the oracle's answers (about the initial state)."""

    facts: tuple[tuple[str, bool], ...]  # (atom or words, holds)
    steps: tuple[tuple[str, tuple[str, ...]], ...]
    answers: tuple[tuple[str, bool], ...]
    has_facts: bool

    @classmethod
    def of(cls, prompt: str) -> _PddlEvidence:
        facts = []
        for line in _fact_lines(prompt):
            low = line.lower()
            for neg in ("not so: ", "not "):
                if low.startswith(neg):
                    facts.append((low[len(neg):].strip(), False))
                    break
            else:
                if low != "(none)":
                    facts.append((low, True))
        steps = []
        for line in _planned(prompt):
            body = line.split(".", 1)[-1].strip().lower()
            if body.startswith("(") and body.endswith(")"):
                name, *args = body[1:-1].split()
                steps.append((name, tuple(args)))
        answers = [(m.group(1).strip().lower(), True) for m in _YES.finditer(prompt)] + \
            [(m.group(1).strip().lower(), False) for m in _NO.finditer(prompt)]
        return cls(tuple(facts), tuple(steps), tuple(answers),
                   re.search(r"^Known facts", prompt, re.M) is not None)

    def misfit(self, t: HiddenTask) -> tuple[int, int]:
        """(statements ``t``'s truth contradicts, known facts of ``t`` the
        prompt leaves out): (0, 0) for the task the prompt was written for."""
        from veriplan.domains.hidden.task import atom_key

        init = {atom_key(a) or a for a in t.payload["closed_world"][0]}
        words = {p.text.lower(): atom_key(p.subject) for p in t.latent}
        now = _after(t, self.steps, init) if self.steps else init

        def key(s: str) -> str | None:
            return atom_key(s) or words.get(s)

        wrong = sum((key(s) in now) != v for s, v in self.facts if key(s))
        wrong += sum(key(s) is None or (key(s) in init) != v for s, v in self.answers)
        stated = {key(s) for s, v in self.facts if v}
        missing = sum(k in now and k not in stated
                      for k in (atom_key(a) for a in t.known)) if self.has_facts else 0
        return wrong, missing


def _after(t: HiddenTask, steps: Iterable[tuple[str, tuple[str, ...]]], init: set[str]
           ) -> set[str]:
    """The atoms true after ``steps`` from ``t``'s true initial state, each
    step's effects applied as the planner's own state takes them (whether or
    not its precondition held); a step that names no action of the task is
    skipped."""
    from veriplan.domains.hidden.pddl_hidden import true_task
    from veriplan.domains.hidden.task import atom_key

    real = true_task(t.payload["domain"], t.payload["problem"])
    objects = t.payload["closed_world"][2]
    state = real.init
    for name, args in steps:
        schema = real.schemas.get(name)
        if schema is None or len(schema.params) != len(args) or not set(args) <= objects:
            continue
        state = real.operator(name, args).apply(state)
    return {atom_key(str(a)) or str(a) for a in real.atoms(state)}


def _fit(task: HiddenTask, ordered: list[str]) -> int:
    """How well a task explains the prompt's fact lines: every prompt states
    the task's known facts first, in order (worth 100, and 1 per fact); each
    known fact missing costs 10, each line the task cannot have stated 1."""
    from veriplan.domains.hidden.task import state_of

    lines = set(ordered)
    first = [k.lower() for k in task.known]
    prefix = 100 + len(first) if ordered[:len(first)] == first else 0
    known = set(first)
    possible = set(known)
    for p in task.latent:
        text = p.text.lower()
        possible |= {state_of(p).lower(), text, f"not so: {text}", p.subject.lower(),
                     f"not {p.subject.lower()}"}
        possible |= {s.lower() for s in p.substitutes}
    unexplained = sum(line not in possible and " x " not in line for line in lines)
    return prefix - 10 * len(known - lines) - unexplained


def _fact_lines(prompt: str) -> list[str]:
    m = re.search(r"^Known facts[^\n]*\n((?:- .*\n?)*)", prompt, re.M)
    return [line[2:].strip() for line in m.group(1).splitlines()] if m else []


def _told(p: Latent, prompt: str) -> bool:
    """The prompt states the fact (revealed, or an answer it shows)."""
    low = prompt.lower()
    if p.subject.startswith("("):
        from veriplan.domains.hidden.task import mentions

        return mentions(prompt, p.subject)
    subject = p.subject.lower()  # SQ-BCP's learned facts name the subject alone
    return p.text.lower() in low or f"not so: {subject}\n" in low or f"- {subject}\n" in low


class StepEffects(TypedDict, total=False):
    """A step's typed effects as the controlled model answers them
    (:meth:`Planner.effects`; the keys of SQ-BCP's hypothesis schema)."""

    resources: dict[str, int]
    structure: str
    facts_true: list[str]
    completes_goal: bool
    seconds: int


class Planner:
    """The controlled planner for one task (see the module docstring)."""

    def __init__(self, task: HiddenTask, settings: Settings) -> None:
        self.t, self.s = task, settings
        self.pddl = task.family == "pddl_hidden" or any(
            p.subject.startswith("(") for p in task.latent)
        self.ref = list(task.reference)
        self.objects = sorted(task.payload["closed_world"][2]) if self.pddl else []

    # ----- which preconditions a step involves -----------------------------------------
    def involved(self, i: int) -> list[Latent]:
        from veriplan.domains.hidden.task import uses

        step = self.ref[i]
        if self.pddl:
            args = set(step.strip("()").split()[1:])
            return [p for p in self.t.latent
                    if set(p.subject.strip("()").split()[1:]) <= args and
                    set(p.subject.strip("()").split()[1:]) & args]
        own = {q.subject.lower() for q in self.t.latent} | {
            k.lower().removeprefix("you have ").removeprefix("a ") for k in self.t.known}

        def adapted(p: Latent) -> bool:  # the step uses a substitute that stands for p only
            return not p.holds and any(uses(step, s) and s.lower() not in own
                                       for s in p.substitutes)

        return [p for p in self.t.latent if uses(step, p.subject) or adapted(p)]

    def omitted(self, p: Latent, i: int, sample: int = 0) -> bool:
        return draw(self.s, self.t.id, "omit", i, p.id, sample) < self.s.p_hidden

    def guess_right(self, p: Latent, i: int, sample: int = 0) -> bool:
        return draw(self.s, self.t.id, "guess", i, p.id, sample) < self.s.acc

    def first_use(self, p: Latent) -> int:
        return next(i for i in range(len(self.ref)) if p in self.involved(i))

    # ----- the step as written ---------------------------------------------------------
    def wrong(self, i: int, p: Latent) -> str:
        """The step as the unadapted procedure writes it (it relies on ``p``)."""
        from veriplan.domains.hidden.task import phrase_pattern

        step = self.ref[i]
        if self.pddl:
            name, *args = step.strip("()").split()
            if not args or len(self.objects) < 2:
                return step
            j = int(draw(self.s, self.t.id, "arg", i, p.id) * len(args))
            others = [o for o in self.objects if o not in args] or \
                [o for o in self.objects if o != args[j]]
            args[j] = others[int(draw(self.s, self.t.id, "obj", i, p.id) * len(others))]
            return "(" + " ".join([name, *args]) + ")"
        if p.holds:
            return step
        for sub in p.substitutes:
            pat = phrase_pattern(sub)
            if pat is not None and pat.search(step):
                return pat.sub(p.subject, step)
        return step

    def step(self, i: int, told: Mapping[str, bool], may_ask: bool, sample: int = 0
             ) -> tuple[str, list[Latent], list[Latent]]:
        """Step ``i`` as written, the preconditions listed (not omitted, not told)
        and those relied on wrongly. ``told``: precondition id -> stated."""
        text = self.ref[i]
        listed, wrong = [], []
        for p in self.involved(i):
            if told.get(p.id):
                continue
            if self.omitted(p, i, sample):
                wrong.append(p)  # assumed to hold
            elif may_ask:
                listed.append(p)
            elif not self.guess_right(p, i, sample):
                wrong.append(p)
        for p in wrong:  # relied on without knowing: the unadapted step
            if not p.holds or self.pddl:
                text = self.wrong(i, p) if text == self.ref[i] else text
        if not self.pddl:  # asked about before it is known: still the procedure's wording
            for p in listed:
                text = self.wrong(i, p) if text == self.ref[i] else text
        return text, listed, wrong

    # ----- answers ----------------------------------------------------------------------
    def question(self, p: Latent) -> str:
        if p.subject.startswith("("):
            return f"Is it true that {p.subject}?"
        return f"Do you have {p.subject}?" if p.kind in ("resource", "equipment") else \
            f"Is it true that {p.text}?"

    def hypotheses(self, prompt: str, k: int) -> str:
        done = _planned(prompt)
        i = len(done)
        if i >= len(self.ref):
            return json.dumps({"hypotheses": []})
        told = {p.id: _told(p, prompt) for p in self.t.latent}
        out = []
        for j in range(max(1, k)):
            text, listed, wrong = self.step(i, told, True, j)
            if any(h["action"] == text for h in out):
                continue
            pre = [{"text": p.text, "subject": p.subject,
                    "label": self.claim(p, i, j)} for p in listed]
            if not self.pddl:
                for p in self.t.latent:  # told and needed: listed as the facts say
                    if told[p.id] and p in self.involved(i):
                        name = p.subject if p.holds else (p.substitutes or (p.subject,))[0]
                        pre.append({"text": f"you have {name}", "subject": name,
                                    "label": "SAT"})
            eff = self.effects(i, text)
            if not self.pddl and self.s.omit == "pre":  # items used up, at first use
                uses_up = [p for p in self.involved(i) if p.kind == "resource"
                           and self.first_use(p) == i
                           and (p in listed or told[p.id] or p in wrong)]
                for p in uses_up:
                    name = p.subject if p.holds or not told[p.id] else \
                        (p.substitutes or (p.subject,))[0]
                    eff["resources"][name] = -1
            out.append({"action": text, "preconditions": pre, "effects": eff})
        return json.dumps({"hypotheses": out})

    def claim(self, p: Latent, i: int, j: int) -> str:
        right = draw(self.s, self.t.id, "label", i, p.id, j) < self.s.acc
        truth = "SAT" if p.holds else "VIOL"
        return truth if right else ("VIOL" if p.holds else "SAT")

    def effects(self, i: int, text: str) -> StepEffects:
        """The step's typed effects: the work passes from step to step as one
        resource ("part i of the work"), the last step makes the product; the
        items a step uses are its preconditions, not resources it uses up."""
        last = i == len(self.ref) - 1
        if self.pddl:
            return {"completes_goal": last, "seconds": 60}
        dr: dict[str, int] = {}
        if i:
            dr[f"part {i} of the work"] = -1
        dr[self.t.product if last else f"part {i + 1} of the work"] = 1
        return {"resources": dr, "structure": self.t.goal if last else text,
                "facts_true": [f"step {i + 1} done"], "completes_goal": last, "seconds": 60}

    def plan(self, prompt: str, may_ask: bool, sample: int = 0) -> str:
        told = {p.id: _told(p, prompt) for p in self.t.latent}
        steps, ask = [], []
        for i in range(len(self.ref)):
            text, listed, _ = self.step(i, told, may_ask, sample)
            steps.append(text)
            ask += [p for p in listed if p not in ask]
        if ask:
            return "\n".join(f"Ask: {self.question(p)}" for p in ask)
        return "Plan:\n" + "\n".join(f"{n}. {s}" for n, s in enumerate(steps, 1))

    def self_ask(self, prompt: str) -> str:
        told = {p.id: _told(p, prompt) for p in self.t.latent}
        for i in range(len(self.ref)):
            _, listed, _ = self.step(i, told, True)
            if listed:
                return ("Are follow-up questions needed here: Yes.\n"
                        f"Follow up: {self.question(listed[0])}")
        return "Are follow-up questions needed here: No.\n" + self.plan(prompt, False)

    def react(self, prompt: str) -> str:
        told = {p.id: _told(p, prompt) for p in self.t.latent}
        i = len(re.findall(r"^Action: Step:", prompt, re.M))
        if i >= len(self.ref):
            return "Thought: the plan is complete.\nAction: Finish"
        text, listed, _ = self.step(i, told, True)
        if listed:
            return f"Thought: I must know this first.\nAction: Ask: {self.question(listed[0])}"
        return f"Thought: next step.\nAction: Step: {text}"

    # ----- Thoughts of Search (hidden-fact PDDL) -----------------------------------------
    def tos(self, prompt: str, may_ask: bool, sample: int = 0) -> str:
        """The ToS answer: the questions :meth:`plan` would ask, else the
        search components as code (:func:`tos_code`; the start state from
        :meth:`tos_start`)."""
        if not self.pddl:
            return "This task's steps are free text: there is no state to search over."
        first = self.plan(prompt, may_ask, sample)
        if first.startswith("Ask:"):
            return first
        schemas = _schemas(prompt)
        start = self.tos_start(prompt, schemas, sample)
        objects = _objects(prompt) or self.objects
        return "```python\n" + tos_code(schemas, objects, start, _goal_atoms(
            prompt, schemas, objects)) + "```\n"

    def tos_start(self, prompt: str, schemas: Mapping[str, Schema], sample: int = 0
                  ) -> set[str]:
        """The start state the model writes: what the procedure needs (the
        atoms the reference plan's steps read before a step adds them, from
        the prompt's action lines) and the atoms the prompt states (known
        facts, answers) as holding, less those it states do not hold; then each
        hidden fact the prompt does not state and that the model relies on
        wrongly at its first step (omitted, with probability p_hidden, or,
        where it may not ask, guessed wrong: the draws of :meth:`step`) is
        confused, as a plan step is: the fact is replaced by the same fact
        with one argument swapped for another object (:meth:`confused`)."""
        holds, fails = _stated(prompt)
        start = (_needs(self.ref, schemas) | holds) - fails
        told = {p.id: _told(p, prompt) for p in self.t.latent}
        for p in self.t.latent:
            first = next((i for i in range(len(self.ref)) if p in self.involved(i)), None)
            if told[p.id] or first is None:
                continue
            _, _, wrong = self.step(first, told, False, sample)
            if p in wrong:
                start.discard(p.subject)
                start.add(self.confused(first, p))
        return start

    def confused(self, i: int, p: Latent) -> str:
        """``p``'s atom with one argument swapped for another object (the
        draws :meth:`wrong` makes for step ``i``)."""
        name, *args = p.subject.strip("()").split()
        if not args or len(self.objects) < 2:
            return p.subject
        j = int(draw(self.s, self.t.id, "arg", i, p.id) * len(args))
        others = [o for o in self.objects if o not in args] or \
            [o for o in self.objects if o != args[j]]
        args[j] = others[int(draw(self.s, self.t.id, "obj", i, p.id) * len(others))]
        return "(" + " ".join([name, *args]) + ")"


@dataclass(frozen=True)
class Schema:
    """An action as the prompt states it: parameters, precondition atoms
    (positive and negated) and effects, with ?variables."""

    params: tuple[str, ...]
    pre: tuple[str, ...]
    neg: tuple[str, ...]
    add: tuple[str, ...]
    delete: tuple[str, ...]


_ATOM_TEXT = re.compile(r"\(\s*[\w-]+(?:\s+[?\w-]+)*\s*\)")


# A parenthesised term: a token, or a list of terms.
_Term: TypeAlias = "str | list[_Term]"


def _sexp(text: str) -> list[_Term]:
    """``text``'s parenthesised terms as nested lists of tokens."""
    stack: list[list[_Term]] = [[]]
    for tok in re.findall(r"[()]|[^\s()]+", text.lower()):
        if tok == "(":
            stack.append([])
        elif tok == ")" and len(stack) > 1:
            done = stack.pop()
            stack[-1].append(done)
        elif tok != ")":
            stack[-1].append(tok)
    return stack[0]


def _atoms(terms: list[_Term]) -> tuple[list[str], list[str]]:
    """The positive and negated atoms of a conjunction (or effect list)."""
    pos: list[str] = []
    neg: list[str] = []
    for t in terms:
        if not isinstance(t, list) or not t:
            continue
        if t[0] == "and":
            p, n = _atoms(t[1:])
            pos += p
            neg += n
        elif t[0] == "not" and len(t) == 2 and isinstance(t[1], list):
            neg.append("(" + " ".join(t[1]) + ")")
        elif all(isinstance(x, str) for x in t):
            pos.append("(" + " ".join(t) + ")")
    return pos, neg


def _schemas(prompt: str) -> dict[str, Schema]:
    """The prompt's action lines, "- (name ?x ...) requires F; effects: E"."""
    out = {}
    for m in re.finditer(r"^- \(([\w-]+)([^)]*)\) requires (.*?); effects: (.*)$", prompt,
                         re.M):
        params = tuple(x for x in m.group(2).lower().split() if x.startswith("?"))
        pre, neg = _atoms(_sexp(m.group(3)))
        add, delete = _atoms(_sexp(m.group(4)))
        out[m.group(1).lower()] = Schema(params, tuple(pre), tuple(neg), tuple(add),
                                         tuple(delete))
    return out


def _ground(atom: str, binding: Mapping[str, str]) -> str:
    return "(" + " ".join(binding.get(x, x) for x in atom[1:-1].split()) + ")"


def _needs(reference: list[str], schemas: Mapping[str, Schema]) -> set[str]:
    """The atoms the reference plan's steps read before a step adds them."""
    added: set[str] = set()
    needs: set[str] = set()
    for step in reference:
        name, *args = step.strip("()").lower().split()
        a = schemas.get(name)
        if a is None:
            continue
        b = dict(zip(a.params, args))
        needs |= {g for x in a.pre if (g := _ground(x, b)) not in added}
        added |= {_ground(x, b) for x in a.add}
    return needs


def _stated(prompt: str) -> tuple[set[str], set[str]]:
    """The atoms the prompt states as holding and as not holding: its known
    facts and the answers it shows ("Is it true that (x)? Yes: ..." / "No: ...")."""
    from veriplan.domains.hidden.task import atom_key

    holds: set[str] = set()
    fails: set[str] = set()
    for line in _fact_lines(prompt):
        if line == "(none)":  # the template's line for no known facts
            continue
        negated = line.lower().startswith("not ")
        a = atom_key(line[4:] if negated else line)
        if a:
            (fails if negated else holds).add(a)
    m = re.search(r"^Answers you were given:\n((?:- .*\n?)*)", prompt, re.M)
    for line in (m.group(1).splitlines() if m else []):
        question, _, answer = line[2:].partition("? ")
        named = {k for x in _ATOM_TEXT.findall(question) if (k := atom_key(x))}
        if len(named) == 1:
            (holds if answer.lower().startswith("yes") else fails).update(named)
    return holds, fails


def _objects(prompt: str) -> list[str]:
    m = re.search(r"The objects of the task: (.*)$", prompt, re.M)
    return [o.strip() for o in m.group(1).split(",") if o.strip()] if m else []


def _goal_atoms(prompt: str, schemas: Mapping[str, Schema], objects: list[str]) -> list[str]:
    """The goal line's atoms (its words in brackets are not atoms: their first
    word is no predicate of the actions)."""
    m = re.search(r"^Goal: (.*?)(?:\. The objects of the task:.*)?$", prompt, re.M)
    preds = {x[1:-1].split()[0] for a in schemas.values()
             for x in (*a.pre, *a.neg, *a.add, *a.delete)}
    found = [x.lower() for x in _ATOM_TEXT.findall(m.group(1) if m else "")]
    return [x for x in dict.fromkeys(found)
            if x[1:-1].split()[0] in preds and set(x[1:-1].split()[1:]) <= set(objects)]


def tos_code(schemas: Mapping[str, Schema], objects: list[str], start: set[str],
             goal: list[str]) -> str:
    """The controlled model's search components: the actions as the prompt
    states them (every object in every parameter: the prompt gives no types),
    the start state it takes, and the goal's atoms."""
    actions = tuple((n, a.params, a.pre, a.neg, a.add, a.delete) for n, a in schemas.items())
    return f"""# Written from the task's actions (preconditions and effects as the prompt
# states them), the known facts and the answers.
from itertools import product

OBJECTS = {tuple(objects)!r}
# (name, parameters, preconditions, negated preconditions, adds, deletes)
ACTIONS = {actions!r}
START = frozenset({sorted(start)!r})
GOAL = frozenset({sorted(goal)!r})


def _ground(atom, binding):
    return "(" + " ".join(binding.get(x, x) for x in atom[1:-1].split()) + ")"


def initial_state():
    return START


def successor_states(state):
    for name, params, pre, neg, add, delete in ACTIONS:
        for args in product(OBJECTS, repeat=len(params)):
            b = dict(zip(params, args))
            if all(_ground(a, b) in state for a in pre) and \\
                    not any(_ground(a, b) in state for a in neg):
                gone = {{_ground(a, b) for a in delete}}
                made = {{_ground(a, b) for a in add}}
                yield "(" + " ".join((name, *args)) + ")", frozenset((state - gone) | made)


def is_goal(state):
    return GOAL <= state
"""


def _planned(prompt: str) -> list[str]:
    m = re.search(r"^Steps already planned:\n((?:\d+\. .*\n?)*)", prompt, re.M)
    return m.group(1).splitlines() if m else []


class ControlledBackend(ControlledModel):
    """``--backend controlled --model sqbcp:p_hidden=P,acc=A,seed=S``.

    :class:`~veriplan.llm.binding.TaskBound`: the benchmark harness binds each
    unit's task (:meth:`bind_task`) and the model answers about exactly that
    task; unbound, it finds the task from the prompt and refuses a prompt that
    several tasks fit (the module docstring's truth channel)."""

    name = "controlled"
    family = "sqbcp"

    def __init__(self, model: str = "sqbcp", *, tasks: Iterable[HiddenTask] | None = None,
                 datasets: str | Iterable[str] = DATASETS, data_dir: str | None = None,
                 limit: int | None = None, **_: object) -> None:
        self.settings = Settings.parse(model)
        self.default_model = model
        names = datasets.split(",") if isinstance(datasets, str) else list(datasets)
        self.truth = Truth(tasks, names, data_dir, int(limit) if limit else None)
        self.requests = []
        self._task = TaskBinding(f"controlled:{model}")

    def bind_task(self, ref: TaskRef) -> AbstractContextManager[None]:
        """Answer about ``ref`` (for this thread of control) until the
        returned context is left."""
        return self._task.bind(ref)

    def answer(self, prompt: str, request: LLMRequest) -> str:
        if "Here are candidate plans:" in prompt:  # the ToT vote
            return "Best: 1"
        if request.schema is not None and (
                "preparatory step" in prompt or "needs this, which is not known" in prompt
                or "Working backwards" in prompt):  # answered without the task's truth
            return json.dumps({"hypotheses": []})
        ref = self._task.current
        task = self.truth.bound(ref, prompt) if ref is not None else self.truth.find(prompt)
        planner = Planner(task, self.settings)
        if request.schema is not None:
            m = re.search(r"Propose up to (\d+)", prompt)
            return planner.hypotheses(prompt, int(m.group(1)) if m else 1)
        if "Follow up:" in prompt:
            return planner.self_ask(prompt)
        if '"Step: <the next step' in prompt:
            return planner.react(prompt)
        may_ask = 'write only lines of the form "Ask:' in prompt
        if "successor_states(state)" in prompt:  # Thoughts of Search (hidden-tos)
            return planner.tos(prompt, may_ask, request.sample_index or 0)
        return planner.plan(prompt, may_ask, request.sample_index or 0)
