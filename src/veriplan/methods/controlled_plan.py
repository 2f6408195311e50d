"""A controlled test model for the closed loop, DRIP and direct generation:
a planner and decomposer that follow a reference with a known, seeded
per-step error rate, so the methods' claims can be tested where no strong
model can run.

``--backend controlled-plan --model plan:p=0.2,seed=0`` (the family may also be
written ``closedloop`` or ``drip``: one model, whichever method calls it)
answers:

- **whole-plan prompts** (the closed loop's LP prompt, direct generation and
  back-prompting with ``prompt=pddl``): the reference plan, one action per line
  ``(name arg ...)``, with errors;
- **DRIP's decomposition prompts** (``decompose.j2``, either action space):
  the reference decomposition of the node, one child per line in DRIP's words,
  with errors. DRIP's other prompts (the LLM actuator's) and the CoT and
  ReAct baselines' are refused with a :class:`BackendError`: run DRIP with
  ``--actuator symbolic``.

**The error model.** Each step of the reference (a plan's action, a
decomposition's child line) is, independently with probability ``p``, written
wrongly in one of the ``kinds`` (default all three), drawn uniformly:

- ``arg``, a wrong argument: one argument, drawn uniformly, is replaced by
  another object drawn uniformly (plans: an object of the argument's type that
  the step does not already name; DRIP: a block the prompt's goal or condition
  names that the step does not). With no such object the step is skipped
  instead (recorded as ``skip``);
- ``skip``: the step is left out;
- ``swap``: the step is written after its successor (adjacent steps
  exchanged). The last step has no successor: its error kind is drawn among the
  other kinds (``arg`` when ``swap`` is the only kind).

Arguments are changed and skipped steps left out first; then, in order of
the written steps, the step at a swapping step's position and the one after
it are exchanged (a swapping step whose later steps were all skipped gets a
wrong argument instead). Each erring step counts once, and a written plan with
only swaps has exactly as many inverted pairs as swaps. Every draw is seeded by (seed, the task, the
attempt's key, the step's position, what is drawn): the same model errs on the
same steps whichever method calls it, so the closed loop's first plan, direct
generation's plan and back-prompting's first plan are the same text and
methods run on the same tasks are paired.

**Repair prompts** (a whole-plan prompt that shows the model's previous plan:
the closed loop's "previous plan" block, or back-prompting's earlier answer).
The model reads the feedback as a model that understands it: it finds the
first step of its previous plan that cannot run (what the closed loop's
SIM/CC directives and back-prompting's diagnosis name; len + 1 when every step
ran and the goal was missed), keeps the steps before it (they run), and writes
the reference *from the state they reach* (a new search from that state) with
fresh errors at the same rate ``p``, keyed by the previous plan and the
request's ``sample_index``. Where the feedback does not say where the plan
failed (the closed loop's ``final_validation_only`` ablation, whose only
directive is "The previous plan was not valid."), it writes a fresh plan from
the initial state with fresh errors. With no previous plan in the prompt (a
first attempt, or ``random_regeneration``) it writes from the initial state,
keyed by ``sample_index`` (so a sampled regeneration gets new errors, a
temperature-0 first attempt always the same).

**The truth channel.** Nothing here comes from a dataset or a gold file: the
reference is computed from what the prompt itself states (so two units with the
same prompt are the same task to it, and it needs no task binding from the
harness: it is not :class:`~veriplan.llm.binding.TaskBound`). Whole-plan prompts
carry the domain and problem in PDDL (their ``(define (domain ...))`` and
``(define (problem ...))`` forms, found by their own syntax, not by prompt
wording); the reference is a classical plan for it: on a task of at most 5
objects, breadth-first search (optimal) within 5,000 expansions; otherwise, or
when that budget runs out, greedy best-first search on h_FF; both
deterministic. DRIP's prompts state the node to decompose (the last
``Goal:`` line), the action space (its help text) and, when shown, the
``Current condition:``; the reference decomposition is what DRIP's own perfect
decomposer (:class:`~veriplan.methods.drip.decomposers.RegressionDecomposer`)
answers for that node, over a task built from the blocks the prompt names
(without the condition its answer depends on the node alone; with it, on the
condition, which names every block). The one thing it cannot have is the
task's goal when it is not the node: DRIP's prompt with the condition asks not
to undo goal facts but does not list them, so where the perfect decomposer
(which has the goal) prefers an achiever that undoes no goal fact, this model
cannot tell goal facts apart and may undo one (tests: "knows only what the
prompt says"). The method under test sees only the
text this model writes: action lines or child lines, never a verdict, a
state or the reference as such.
"""

from __future__ import annotations

import hashlib
import random
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache

from veriplan.core.atom import Atom
from veriplan.core.facts import State
from veriplan.core.plan import Step
from veriplan.errors import BackendError, ConfigError, VeriplanError
from veriplan.llm.controlled import ControlledModel
from veriplan.llm.types import LLMRequest
from veriplan.pddl.task import Task

FAMILIES = ("plan", "closedloop", "drip")
BFS_OBJECTS = 5  # tasks with at most this many objects get an optimal reference
BFS_EXPANSIONS = 5_000  # the optimal search's budget before greedy search takes over


class ErrorKind(StrEnum):
    ARG = "arg"  # one argument replaced by another object
    SKIP = "skip"  # the step left out
    SWAP = "swap"  # the step written after its successor


@dataclass(frozen=True)
class Settings:
    """``plan:p=P,seed=S[,kinds=arg+skip+swap]``."""

    family: str = "plan"
    p: float = 0.2  # per-step error rate
    seed: int = 0
    kinds: tuple[ErrorKind, ...] = (ErrorKind.ARG, ErrorKind.SKIP, ErrorKind.SWAP)

    @classmethod
    def parse(cls, spec: str) -> Settings:
        family, _, rest = (spec or "plan").partition(":")
        family = family or "plan"
        if family not in FAMILIES:
            raise ConfigError(f"controlled-plan model family {family!r}: use one of "
                              f"{', '.join(FAMILIES)} (e.g. plan:p=0.2,seed=0)")
        p, seed, kinds = cls.p, cls.seed, cls.kinds
        for part in filter(None, (x.strip() for x in rest.split(","))):
            k, sep, v = part.partition("=")
            try:
                if not sep or k not in ("p", "seed", "kinds"):
                    raise ValueError
                if k == "p":
                    p = float(v)
                elif k == "seed":
                    seed = int(v)
                else:
                    kinds = tuple(ErrorKind(x) for x in v.split("+"))
            except ValueError:
                raise ConfigError(
                    f"controlled-plan model {spec!r}: bad setting {part!r} (p=RATE in [0, 1], "
                    "seed=INT, kinds=arg+skip+swap)") from None
        if not 0 <= p <= 1:
            raise ConfigError(f"controlled-plan model {spec!r}: p must be in [0, 1]")
        if not kinds or len(set(kinds)) != len(kinds):
            raise ConfigError(f"controlled-plan model {spec!r}: kinds names each of "
                              "arg, skip, swap at most once, at least one")
        return cls(family, p, seed, kinds)


def draw(s: Settings, *parts: object) -> float:
    """A uniform draw in [0, 1) fixed by the seed and ``parts``."""
    return random.Random(":".join(map(str, (s.seed, *parts)))).random()


@dataclass(frozen=True)
class Written:
    """A reference as the model wrote it: the steps (name, args) in order and
    the errors made, as (position in the reference, kind)."""

    steps: tuple[tuple[str, tuple[str, ...]], ...]
    errors: tuple[tuple[int, ErrorKind], ...] = ()


Alternatives = Callable[[tuple[str, tuple[str, ...]], int], Sequence[str]]


def perturb(reference: Sequence[tuple[str, tuple[str, ...]]], s: Settings, key: tuple,
            alternatives: Alternatives) -> Written:
    """``reference`` with each step wrong at rate ``s.p`` (see the module
    docstring). ``alternatives(step, j)``: the objects that may replace the
    step's argument ``j``. ``key`` fixes the draws (task and attempt)."""
    n = len(reference)
    kinds: list[ErrorKind | None] = []
    for i in range(n):
        if draw(s, *key, "err", i) >= s.p:
            kinds.append(None)
            continue
        allowed = [k for k in s.kinds if k is not ErrorKind.SWAP or i + 1 < n] or [ErrorKind.ARG]
        kinds.append(allowed[int(draw(s, *key, "kind", i) * len(allowed))])
    steps = list(reference)

    def change_arg(i: int) -> None:
        name, args = steps[i]
        if args:
            j = int(draw(s, *key, "argpos", i) * len(args))
            options = [o for o in alternatives(steps[i], j) if o not in args]
            if options:
                new = list(args)
                new[j] = options[int(draw(s, *key, "obj", i) * len(options))]
                steps[i], kinds[i] = (name, tuple(new)), ErrorKind.ARG
                return
        kinds[i] = ErrorKind.SKIP  # nothing to put in its place: left out

    for i in range(n):
        if kinds[i] is ErrorKind.ARG:
            change_arg(i)
    order = [i for i in range(n) if kinds[i] is not ErrorKind.SKIP]
    written = list(order)
    for q, i in enumerate(written):  # positions of the written steps, in order
        if kinds[i] is ErrorKind.SWAP:
            if q + 1 < len(order):
                order[q], order[q + 1] = order[q + 1], order[q]
            else:  # every later step was skipped: no successor to swap with
                change_arg(i)
    out = tuple(steps[i] for i in order if kinds[i] is not ErrorKind.SKIP)
    return Written(out, tuple((i, k) for i, k in enumerate(kinds) if k is not None))


# ----- whole plans ------------------------------------------------------------------------
def _form(text: str, head: str) -> str | None:
    """The balanced s-expression that starts with ``head`` (e.g. "(define (domain")."""
    m = re.search(re.escape(head).replace(r"\ ", r"\s*"), text, re.I)
    if m is None:
        return None
    depth = 0
    for j in range(m.start(), len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return text[m.start():j + 1]
    return None


class _From:
    """The task as a transition system that starts in ``state``."""

    def __init__(self, task: Task, state: State) -> None:
        self.task, self.state = task, state

    def initial_state(self) -> State:
        return self.state

    def is_goal(self, state: State) -> bool:
        return self.task.is_goal(state)

    def successors(self, state: State):  # noqa: ANN201 (the task's own iterator)
        return self.task.successors(state)


def reference_plan(task: Task, state: State) -> list[Step]:
    """A plan from ``state`` to the goal: on a task of at most
    :data:`BFS_OBJECTS` objects breadth-first (optimal) within
    :data:`BFS_EXPANSIONS` expansions; otherwise, or past that budget, greedy
    best-first on h_FF."""
    from veriplan.search import Budget, astar, bfs, make_heuristic

    system = _From(task, state)
    r = None
    if len(task.objects) <= BFS_OBJECTS:
        r = bfs(system, budget=Budget(max_expansions=BFS_EXPANSIONS))
    if r is None or (r.plan is None and r.status == "budget"):
        r = astar(system, make_heuristic("hff", task), weight=None)
    if r.plan is None:
        raise BackendError(f"controlled-plan: no plan exists for problem {task.name} from "
                           "the state its previous plan reached")
    return [Step(op.name, op.args) for op in r.plan]


_LINE = re.compile(r"\(\s*([^()\s]+)((?:\s+[^()\s]+)*)\s*\)")


def read_steps(text: str) -> list[Step]:
    """The ``(name arg ...)`` actions of a plan text, in order."""
    return [Step(m.group(1).lower(), tuple(m.group(2).lower().split()))
            for m in _LINE.finditer(text)]


@dataclass
class PlanTask:
    """One task of a whole-plan prompt, read from the prompt's PDDL."""

    task: Task
    key: str  # a digest of the problem's PDDL: the same task in every method's prompt
    _plans: dict[State, list[Step]] = field(default_factory=dict)

    def reference(self, state: State) -> list[Step]:
        if state not in self._plans:
            self._plans[state] = reference_plan(self.task, state)
        return self._plans[state]

    def alternatives(self, step: tuple[str, tuple[str, ...]], j: int) -> list[str]:
        schema = self.task.schemas.get(step[0])
        if schema is None or j >= len(schema.params):
            return sorted(self.task.objects)
        return sorted(o for o in self.task.objects if self.task.has_type(o, schema.params[j].type))

    def write(self, s: Settings, state: State, key: tuple) -> Written:
        ref = [(st.name, tuple(st.args)) for st in self.reference(state)]
        return perturb(ref, s, (self.key, *key), self.alternatives)

    def ran(self, steps: Sequence[Step]) -> tuple[int, State]:
        """How many leading steps run from the initial state (veriplan's
        validator says where the plan fails), and the state after them."""
        from veriplan.verify import validate_plan

        v = validate_plan(self.task, list(steps))
        k = v.failed_step - 1 if v.failed_step is not None else len(steps)
        state = self.task.init
        for st in steps[:k]:
            state = self.task.operator(st.name, tuple(st.args)).apply(state)
        return k, state


def _digest(*texts: str) -> str:
    return hashlib.sha256("\n".join(" ".join(t.split()) for t in texts).encode()).hexdigest()[:16]


def _not_valid_only() -> str:
    """The closed loop's only directive under ``final_validation_only``."""
    from veriplan.methods.closed_loop.rc import BINARY

    return BINARY.directives[0]


def previous_plan(request: LLMRequest) -> str | None:
    """The model's previous plan: the closed loop's block after "previous plan:"
    in the last prompt, else (back-prompting) the last earlier answer."""
    prompt = request.messages[-1].content
    m = re.search(r"previous plan:\s*\n((?:\s*\(.*\)\s*\n?)+)", prompt, re.I)
    if m:
        return m.group(1)
    answers = [m.content for m in request.messages[:-1] if m.role == "assistant"]
    return answers[-1] if answers else None


def _line(step: tuple[str, tuple[str, ...]]) -> str:
    return "(" + " ".join((step[0], *step[1])) + ")"


# ----- DRIP decompositions ------------------------------------------------------------
_BLOCK = re.compile(r"\bblocks? (\w+)")


def _last(prompt: str, label: str) -> str | None:
    found = re.findall(rf"^{label}:[ \t]*(.*)$", prompt, re.M)
    return found[-1].strip() if found else None


def _facts(text: str) -> list[Atom]:
    """Fact sentences ("block a is on top of block b, block c is clear.") as atoms."""
    out = []
    for part in re.split(r",\s*|\s+and\s+", text.strip().rstrip(".")):
        part = part.strip().lower()
        if m := re.fullmatch(r"block (\w+) is on top of block (\w+)", part):
            out.append(Atom("on", (m.group(1), m.group(2))))
        elif m := re.fullmatch(r"block (\w+) is on the table", part):
            out.append(Atom("ontable", (m.group(1),)))
        elif m := re.fullmatch(r"block (\w+) is clear", part):
            out.append(Atom("clear", (m.group(1),)))
        elif m := re.fullmatch(r"the hand is holding block (\w+)", part):
            out.append(Atom("holding", (m.group(1),)))
        elif part == "the hand is empty":
            out.append(Atom("handempty", ()))
    return out


def _blocks_task(blocks: Sequence[str], init: Sequence[Atom], goal: Sequence[Atom]) -> Task:
    """A four-action Blocksworld task over ``blocks`` (every block on the table
    and clear, the hand empty, when ``init`` is empty)."""
    from veriplan.domains.blocksworld import four_action_domain
    from veriplan.pddl.parser import parse_problem

    if not init:
        init = [Atom(p, (b,)) for b in blocks for p in ("ontable", "clear")] + [
            Atom("handempty", ())]
    elif not any(a.pred == "holding" for a in init):
        init = [*init, Atom("handempty", ())]
    domain = four_action_domain()

    def pddl(a: Atom) -> str:
        return "(" + " ".join((a.pred, *a.args)) + ")"

    text = (f"(define (problem controlled) (:domain {domain.name}) (:objects {' '.join(blocks)})"
            f" (:init {' '.join(map(pddl, init))}) (:goal (and {' '.join(map(pddl, goal))})))")
    return Task(domain, parse_problem(text, domain))


def decomposition(prompt: str, s: Settings, sample: int = 0) -> Written:
    """The controlled decomposer's answer to one of DRIP's decomposition prompts."""
    from veriplan.domains.blocksworld import SPACES, sentence

    space = next((sp for sp in SPACES.values() if sp.help in prompt), None)
    goal_text = _last(prompt, "Goal")
    if space is None or goal_text is None:
        raise BackendError("controlled-plan: a DRIP prompt without its action space's help "
                           "text or a 'Goal:' line")
    condition = _last(prompt, "Current condition")
    ref, named = _reference_decomposition(space.name, goal_text, condition)

    def alternatives(_step: tuple[str, tuple[str, ...]], _j: int) -> list[str]:
        return list(named)

    written = perturb(ref, s, ("drip", space.name, goal_text, condition or "", sample),
                      alternatives)
    lines = []
    for name, args in written.steps:
        if name.startswith("fact:"):
            lines.append(sentence(Atom(name[5:], args)) or "")
        else:
            lines.append(space.action_text(Step(name, args)))
    return Written(tuple((ln, ()) for ln in lines), written.errors)


@lru_cache(maxsize=4096)
def _reference_decomposition(space_name: str, goal_text: str, condition: str | None
                             ) -> tuple[tuple[tuple[str, tuple[str, ...]], ...],
                                        tuple[str, ...]]:
    """DRIP's perfect decomposer's answer for the node (see the module
    docstring), and the blocks the prompt names."""
    from veriplan.domains.blocksworld import SPACES
    from veriplan.methods.drip.decomposers import RegressionDecomposer
    from veriplan.methods.drip.tree import Kind, Node

    space = SPACES[space_name]
    named = list(dict.fromkeys(_BLOCK.findall(goal_text.lower()) +
                               _BLOCK.findall((condition or "").lower())))
    init = _facts(condition) if condition else []
    goal = _facts(goal_text)
    step = None
    if not goal:  # an action node ("stack a e", "unstack blocks e"): its words name its blocks
        words = [w for w in re.findall(r"[\w-]+", goal_text.lower())]
        step = space.read_action(goal_text, _blocks_task(sorted({*named, *words}), [], []))
        if step is None:
            raise BackendError(f"controlled-plan: DRIP's goal {goal_text!r} is neither an "
                               "action nor facts")
        named = list(dict.fromkeys([*named, *step.args]))
    task = space.task(_blocks_task(sorted(named), init, goal))
    if step is not None:
        kind, fact = Kind.ACTION, None
    else:
        kind, fact = (Kind.GOAL, None) if len(goal) > 1 else (Kind.FACT, goal[0])
    node = Node(0, kind, goal_text, None, 0, step=step, fact=fact)
    state = task.init if condition else None
    result = RegressionDecomposer(task, space, list(goal)).decompose(node, condition, state)
    ref: list[tuple[str, tuple[str, ...]]] = []
    for c in result.children:
        if c.step is not None:
            ref.append((c.step.name, tuple(c.step.args)))
        elif c.fact is not None:
            ref.append(("fact:" + c.fact.pred, tuple(c.fact.args)))
    return tuple(ref), tuple(named)


# ----- the backend ----------------------------------------------------------------------
# Tasks read from prompts, with their references, shared by every instance of the
# backend in a process (a reference does not depend on the error rate).
_TASKS: OrderedDict[str, PlanTask] = OrderedDict()
_LOCK = threading.Lock()


class ControlledPlanBackend(ControlledModel):
    """``--backend controlled-plan --model plan:p=P,seed=S[,kinds=...]``."""

    name = "controlled-plan"
    family = "plan"

    def __init__(self, model: str = "plan", **_: object) -> None:
        self.settings = Settings.parse(model)
        self.default_model = model
        self.requests = []

    def plan_task(self, text: str) -> PlanTask | None:
        domain, problem = _form(text, "(define (domain"), _form(text, "(define (problem")
        if domain is None or problem is None:
            return None
        key = _digest(domain, problem)
        with _LOCK:
            if key in _TASKS:
                _TASKS.move_to_end(key)
                return _TASKS[key]
        from veriplan.pddl.parser import parse_domain, parse_problem

        try:
            d = parse_domain(domain)
            t = Task(d, parse_problem(problem, d))
        except VeriplanError as exc:
            raise BackendError(f"controlled-plan: the prompt's PDDL does not parse: {exc}") \
                from exc
        found = PlanTask(t, key)
        with _LOCK:
            _TASKS[key] = found
            while len(_TASKS) > 256:
                _TASKS.popitem(last=False)
        return found

    def write_plan(self, pt: PlanTask, request: LLMRequest) -> Written:
        """The answer to a whole-plan prompt (see the module docstring)."""
        s, sample = self.settings, request.sample_index or 0
        prompt = request.messages[-1].content
        previous = previous_plan(request)
        if previous is None:
            return pt.write(s, pt.task.init, ("plan", sample))
        ptag = _digest(previous)
        if _not_valid_only() in prompt:  # no word on where it failed: a fresh plan
            return pt.write(s, pt.task.init, ("fresh", ptag, sample))
        steps = read_steps(previous)
        k, state = pt.ran(steps)
        rest = pt.write(s, state, ("repair", ptag, sample))
        kept = tuple((st.name, tuple(st.args)) for st in steps[:k])
        return Written(kept + rest.steps, rest.errors)

    def answer(self, prompt: str, request: LLMRequest) -> str:
        whole = "\n".join(m.content for m in request.messages)
        pt = self.plan_task(whole)
        if pt is not None:
            return "\n".join(_line(st) for st in self.write_plan(pt, request).steps)
        if "Goal:" in prompt and "arranging them into stacks" in prompt and \
                "write the actions" in prompt:
            written = decomposition(prompt, self.settings, request.sample_index or 0)
            return "\n".join(text for text, _ in written.steps)
        raise BackendError(
            "controlled-plan answers whole-plan prompts that state the task in PDDL (the "
            "closed loop; direct and back-prompting with prompt=pddl) and DRIP's "
            "decomposition prompts (with --actuator symbolic); this prompt is neither")


__all__ = ["ControlledPlanBackend", "ErrorKind", "PlanTask", "Settings", "Written",
           "decomposition", "perturb", "previous_plan", "read_steps", "reference_plan"]
