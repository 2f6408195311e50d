"""Differential fuzzing of veriplan's validator against VAL: seeded random walks
(valid executions) on the bundled domains, mutated (a step dropped, two swapped, one
inserted, an argument replaced, the tail cut, an unknown object or action, an argument
more or fewer), judged by both; a disagreement is shrunk to its smallest case.
The problems come from ``veriplan.bench.fuzz_problems`` (the verifier imports no
environment); the test suite's sample and ``benchmarks/val_fuzz.py``'s sweep run the same cases.
"""

from __future__ import annotations

import dataclasses
import random
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from veriplan.core.atom import Atom
from veriplan.core.plan import Step
from veriplan.errors import PDDLLenientWarning
from veriplan.verify.val import (
    ValTool,
    ValVerdict,
    disagreement,
)

if TYPE_CHECKING:
    from veriplan.pddl.task import Task
    from veriplan.verify.validator import ValidationResult

# ----- differential fuzzing ------------------------------------------------------------
# Seeded plans from random walks (valid executions), then mutated; each plan judged
# by veriplan and by VAL on the same task. Tests run a sample, benchmarks/val_fuzz.py
# a sweep.

MUTATIONS = ("walk", "drop", "swap", "insert", "replace-arg", "cut", "unknown-object",
             "unknown-action", "wrong-arity")
UNKNOWN_OBJECT = "ghost-object"
UNKNOWN_ACTION = "teleport-anywhere"


@dataclass(frozen=True)
class FuzzProblem:
    """One problem to fuzz: the files veriplan reads (``strict`` as given) and the
    domain file VAL reads (the same file unless VAL needs a copy it can read)."""

    family: str
    name: str
    domain: Path
    problem: Path
    val_domain: Path
    strict: bool = True

    def task(self) -> Task:
        from veriplan.pddl.task import load_task

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PDDLLenientWarning)
            return load_task(self.domain, self.problem, strict=self.strict)


@dataclass(frozen=True)
class FuzzCase:
    """A plan judged by both: the walk it came from, the mutation, the goal set for
    it (atoms true at the walk's end) and the steps."""

    problem: FuzzProblem
    kind: str
    goal: tuple[Atom, ...]
    plan: tuple[Step, ...]


@dataclass(frozen=True)
class Disagreement:
    case: FuzzCase
    ours: ValidationResult
    val: ValVerdict
    reason: str


@dataclass
class FuzzReport:
    cases: int = 0
    by_family: dict[str, int] = field(default_factory=dict)
    by_outcome: dict[str, int] = field(default_factory=dict)
    val_calls: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # family -> why


def random_walk(task: Task, rng: random.Random, length: int) -> tuple[tuple[Step, ...], int]:
    """Up to ``length`` steps, each chosen at random among the operators applicable
    in the state reached (a valid execution), and the state at its end."""
    ops = _ground_sorted(task)
    state = task.init
    steps: list[Step] = []
    for _ in range(length):
        here = [op for op in ops if op.applicable(state)]
        if not here:
            break
        op = rng.choice(here)
        state = op.apply(state)
        steps.append(Step(op.name, op.args))
    return tuple(steps), state


def _ground_sorted(task: Task) -> list:
    """The task's operators in name order: the order ``ground()`` finds them in
    depends on what the process read before (the fact index is shared per domain),
    and seeded walks must not."""
    return sorted(task.ground(), key=lambda op: (op.name, op.args))


def walk_goal(task: Task, state: int, rng: random.Random, k: int = 3) -> tuple[Atom, ...]:
    """Up to ``k`` atoms true in ``state``, those the walk made true first."""
    now = task.atoms(state)
    before = set(task.atoms(task.init))
    new = [a for a in now if a not in before]
    pool = new if new else now
    return tuple(sorted(rng.sample(pool, min(k, len(pool))))) if pool else ()


def mutate(task: Task, walk: tuple[Step, ...], kind: str, rng: random.Random
           ) -> tuple[Step, ...]:
    """``walk`` changed by one mutation of :data:`MUTATIONS` (``walk``: unchanged)."""
    plan = list(walk)
    n = len(plan)
    if kind == "walk" or (n == 0 and kind not in ("insert", "unknown-action")):
        return walk
    i = rng.randrange(n) if n else 0
    if kind == "drop":
        del plan[i]
    elif kind == "swap" and n >= 2:
        j = rng.randrange(n - 1)
        j = j + 1 if j >= i else j
        plan[i], plan[j] = plan[j], plan[i]
    elif kind == "insert":
        op = rng.choice(_ground_sorted(task))
        plan.insert(rng.randrange(n + 1), Step(op.name, op.args))
    elif kind in ("replace-arg", "unknown-object") and plan[i].args:
        s = plan[i]
        a = rng.randrange(len(s.args))
        new = UNKNOWN_OBJECT if kind == "unknown-object" else rng.choice(sorted(task.objects))
        plan[i] = Step(s.name, s.args[:a] + (new,) + s.args[a + 1:])
    elif kind == "cut":
        plan = plan[:i]
    elif kind == "unknown-action":
        j = rng.randrange(n + 1)
        plan.insert(j, Step(UNKNOWN_ACTION, plan[i].args if n else ()))
    elif kind == "wrong-arity":  # one argument more, or one fewer
        s = plan[i]
        if s.args and rng.random() < 0.5:
            plan[i] = Step(s.name, s.args[:-1])
        else:
            plan[i] = Step(s.name, s.args + (rng.choice(sorted(task.objects)),))
    return tuple(plan)


def goal_variant(task: Task, goal: Sequence[Atom]) -> Task:
    """``task`` with the conjunction ``goal`` as its goal."""
    from veriplan.pddl.ast import And
    from veriplan.pddl.task import Task as TaskClass

    problem = dataclasses.replace(task.problem, goal=And(tuple(goal)))
    return TaskClass(task.domain, problem)


def judge_cases(cases: Sequence[FuzzCase], val: ValTool, workdir: Path,
                report: FuzzReport | None = None, *, task: Task | None = None
                ) -> list[Disagreement]:
    """Judge ``cases`` (all of one problem and goal) by veriplan and by VAL (one
    batched call); the disagreements. ``task``: the problem's task, if loaded."""
    from veriplan.pddl.writer import problem_to_pddl
    from veriplan.verify.consistency import StepErrorKind
    from veriplan.verify.validator import validate_plan

    if not cases:
        return []
    first = cases[0]
    task = goal_variant(task or first.problem.task(), first.goal)
    prob = workdir / "problem.pddl"
    prob.write_text(problem_to_pddl(task.problem))
    results = [validate_plan(task, c.plan) for c in cases]
    # Batched where safe: a step of the wrong arity can crash VAL, so such a plan
    # gets a process of its own; an unknown action or object ends VAL's run, so
    # those plans go last, where they stop the fewest.
    stops = (StepErrorKind.UNKNOWN_ACTION, StepErrorKind.UNKNOWN_OBJECT)
    safe = sorted((k for k, r in enumerate(results)
                   if all(e.kind is not StepErrorKind.WRONG_ARITY for e in r.step_errors)),
                  key=lambda k: any(e.kind in stops for e in results[k].step_errors))
    verdicts: dict[int, ValVerdict] = dict(zip(safe, val.judge_many(
        first.problem.val_domain, prob, [cases[k].plan for k in safe])))
    for k in range(len(cases)):
        if k not in verdicts:
            verdicts[k] = val.judge(first.problem.val_domain, prob, cases[k].plan)
    out = []
    for k, case in enumerate(cases):
        ours, verdict = results[k], verdicts[k]
        why = disagreement(ours, verdict)
        if report is not None:
            report.cases += 1
            report.by_family[case.problem.family] = report.by_family.get(
                case.problem.family, 0) + 1
            report.by_outcome[str(verdict.outcome)] = report.by_outcome.get(
                str(verdict.outcome), 0) + 1
        if why is not None:
            out.append(Disagreement(case, ours, verdict, why))
    if report is not None:
        report.val_calls += 1
        report.disagreements += out
    return out


def fuzz(problems: Iterable[FuzzProblem], val: ValTool, *, seed: int = 0, walks: int = 4,
         max_length: int = 12, report: FuzzReport | None = None) -> FuzzReport:
    """For each problem, ``walks`` seeded random walks of 1..``max_length`` steps,
    each with a goal of atoms true at its end and every mutation of it; all judged
    by both. A problem veriplan cannot load is an error (it is bundled)."""
    report = report or FuzzReport()
    with tempfile.TemporaryDirectory(prefix="veriplan-fuzz-") as tmp:
        for fp in problems:
            rng = random.Random(f"{seed}:{fp.family}:{fp.name}")
            task = fp.task()
            for _ in range(walks):
                walk, end = random_walk(task, rng, rng.randint(1, max_length))
                goal = walk_goal(task, end, rng)
                if not goal:
                    continue
                cases = [FuzzCase(fp, kind, goal, mutate(task, walk, kind, rng))
                         for kind in MUTATIONS]
                judge_cases(cases, val, Path(tmp), report, task=task)
    return report


def shrink(d: Disagreement, val: ValTool) -> Disagreement:
    """A smallest case on which veriplan and VAL still disagree: runs of steps
    dropped (halves first, then shorter runs, down to single steps) while they
    disagree, then goal atoms; no single step or goal atom can be dropped from
    the result."""
    best = d
    with tempfile.TemporaryDirectory(prefix="veriplan-shrink-") as tmp:
        base = d.case.problem.task()

        def still(case: FuzzCase) -> Disagreement | None:
            found = judge_cases([case], val, Path(tmp), task=base)
            return found[0] if found else None

        changed = True
        while changed:
            changed = False
            case = best.case
            n = len(case.plan)
            size = max(1, n // 2)
            while size >= 1 and not changed:  # drop runs of steps, long runs first
                for i in range(0, n, size):
                    cand = dataclasses.replace(case, plan=case.plan[:i] + case.plan[i + size:])
                    hit = still(cand)
                    if hit is not None:
                        best, changed = hit, True
                        break
                size //= 2
            if changed:
                continue
            for i in range(len(case.goal)):
                if len(case.goal) == 1:
                    break
                cand = dataclasses.replace(case, goal=case.goal[:i] + case.goal[i + 1:])
                hit = still(cand)
                if hit is not None:
                    best, changed = hit, True
                    break
    return best


# ----- the bundled domains ---------------------------------------------------------------
