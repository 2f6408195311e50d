"""Hidden-fact PDDL: PlanBench problems with initial facts withheld.

For each problem, a reference plan is found with veriplan's own search
(A* with h_FF within a fixed expansion budget, else greedy best-first with
h_FF; deterministic, and validated). The facts the plan depends on are the
initial facts some step's precondition reads before any step adds them;
``min(those, cap)`` of them (seeded) are withheld. Type facts (static unary
predicates such as Logistics' ``(truck t0)``; ``(airport l)`` is a fact, since
it singles out some locations) are never withheld.

To make "no" answers possible, a few facts that are false in the initial
state but that a guesser might assume join the latent preconditions: the
withheld facts with one argument swapped for another object of the same
kind (``(clear b)`` for a covered block, ``(at t0 l0-1)`` for a truck that is
elsewhere). A plan that assumes one of them breaks on the true problem.

The decider reads the plan (PDDL action lines or PlanBench's words, with
:func:`veriplan.planio.parse_plan`), runs veriplan's validator on the true
problem and returns a :class:`~veriplan.core.verdict.Judgement` (scope
``HIDDEN_TASK``): the first inapplicable step (``PRECONDITION``, or
``BAD_ARGUMENTS`` for a name or arguments the domain does not have), any unread
line (``UNREAD``) and, for a plan that executes, an unmet goal (``GOAL``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from veriplan.core.atom import Atom
from veriplan.core.condition import bits
from veriplan.core.plan import Step
from veriplan.core.verdict import Finding, FindingKind, Judgement, Scope
from veriplan.domains.hidden.common import Skipped, TaskSet
from veriplan.domains.hidden.task import HiddenTask, Latent
from veriplan.errors import ConfigError, DataError, VeriplanError
from veriplan.pddl.ast import Domain, ForallEffect, When
from veriplan.pddl.parser import read_domain, read_problem
from veriplan.pddl.task import Task
from veriplan.planio import PlanBenchConfig, parse_plan

FAMILY = "pddl_hidden"
CAP = 6  # withheld facts per task, at most
DECOYS = (1, 2)  # false facts a guesser might assume, per task
CONSTRAINT = "every action's preconditions must hold"
ASTAR_EXPANSIONS = 300  # then greedy best-first search
GBFS_EXPANSIONS = 200_000
# PlanBench sources (relative to the planbench/ folder of the data directory).
SOURCES: dict[str, tuple[str, str, str]] = {
    "blocksworld": ("instances/blocksworld/generated_domain.pddl",
                    "instances/blocksworld/generated_basic", "configs/blocksworld.yaml"),
    "logistics": ("instances/logistics/generated_domain.pddl",
                  "instances/logistics/generated_basic", "configs/logistics.yaml"),
}


def _domain(path: str) -> Domain:
    """A domain object of its own for each task. Tasks built from one domain
    object share its fact numbering (veriplan.pddl.task), so the order of the
    supporting facts and the reference search's tie-breaks would depend on
    which tasks the process built before: the same problem gave different
    withheld facts alone and after others."""
    return read_domain(path)


@lru_cache(maxsize=16)
def _config(path: str) -> PlanBenchConfig:
    return PlanBenchConfig.from_yaml(path)


def _fresh_task(domain_path: str, problem_path: str) -> Task:
    """The real problem, on a domain object of its own (see :func:`_domain`)."""
    d = _domain(domain_path)
    return Task(d, read_problem(problem_path, d))


@lru_cache(maxsize=1024)
def true_task(domain_path: str, problem_path: str) -> Task:
    """The real problem for judging plans (read once per process; a verdict
    does not depend on the fact numbering, a built task does)."""
    return _fresh_task(domain_path, problem_path)


def reference_plan(task: Task) -> tuple[Step, ...]:
    """A validated plan for ``task``: A* with h_FF within
    :data:`ASTAR_EXPANSIONS` expansions (short plans), else greedy best-first
    search with h_FF (budgets in expansions, so the plan is the same on every
    machine)."""
    from veriplan.search import Budget, astar, make_heuristic
    from veriplan.verify import validate_plan

    h = make_heuristic("hff", task)
    r = astar(task, h, budget=Budget(max_expansions=ASTAR_EXPANSIONS))
    if r.plan is None:
        r = astar(task, h, budget=Budget(max_expansions=GBFS_EXPANSIONS), weight=None)
    if r.plan is None:
        raise DataError(f"{task.problem.file}: no plan found within the search budget "
                        f"({r.status})")
    plan = tuple(Step(op.name, op.args) for op in r.plan)
    v = validate_plan(task, plan)
    if not v.valid:  # pragma: no cover - the searches are sound
        raise DataError(f"{task.problem.file}: the reference plan does not validate: "
                        f"{v.feedback()}")
    return plan


def supporting_facts(task: Task, plan: Sequence[Step]) -> list[Atom]:
    """The initial facts ``plan`` depends on: read by some step's precondition
    before any earlier step adds them (in the order first read)."""
    added, out, seen = 0, [], 0
    for step in plan:
        op = task.operator(step.name, step.args)
        read = op.pre_pos & task.init & ~added & ~seen
        for b in sorted(bits(read)):
            out.append(task.facts.atoms[b])
        seen |= read
        added |= op.add
    return out


def fluent_predicates(domain: Domain) -> set[str]:
    """Predicates some action adds or deletes."""
    out: set[str] = set()

    def walk(effects) -> None:
        for e in effects:
            if isinstance(e, When | ForallEffect):
                walk(e.effects)
            elif hasattr(e, "atom"):
                out.add(e.atom.pred)

    for a in domain.actions:
        walk(a.effects)
    return out


def type_predicates(task: Task, cfg: PlanBenchConfig | None = None
                    ) -> dict[str, frozenset[str]]:
    """Static unary predicates that act as types: predicate -> its objects.
    With a PlanBench config, those it gives no words (Logistics' ``truck``,
    ``city``; ``airport`` has words: it is a fact); without one, those whose
    objects are not a strict subset of another's."""
    fluent = fluent_predicates(task.domain)
    ext: dict[str, set[str]] = {}
    for a in task.problem.init:
        if len(a.args) == 1 and a.pred not in fluent:
            ext.setdefault(a.pred, set()).add(a.args[0])
    if cfg is not None and cfg.predicates:
        return {p: frozenset(objs) for p, objs in ext.items()
                if not cfg.predicates.get(p, "").strip()}
    return {p: frozenset(objs) for p, objs in ext.items()
            if not any(objs < other for q, other in ext.items() if q != p)}


def _kinds(task: Task, cfg: PlanBenchConfig | None = None) -> dict[str, tuple]:
    """Each object's kind: its declared type and the type predicates it has."""
    types = type_predicates(task, cfg)
    return {o: (t, tuple(sorted(p for p, objs in types.items() if o in objs)))
            for o, t in task.objects.items()}


def decoy_facts(task: Task, withheld: Sequence[Atom], cfg: PlanBenchConfig | None = None
                ) -> list[Atom]:
    """False facts a guesser might assume: a withheld fact with one argument
    swapped for another object of the same kind (no repeated arguments, not
    true initially)."""
    kinds = _kinds(task, cfg)
    init = set(task.problem.init)
    out: list[Atom] = []
    for w in withheld:
        for j, arg in enumerate(w.args):
            for o in sorted(task.objects):
                if o == arg or kinds.get(o) != kinds.get(arg):
                    continue
                args = w.args[:j] + (o,) + w.args[j + 1:]
                if len(set(args)) < len(args):
                    continue
                a = Atom(w.pred, args)
                if a not in init and a not in out:
                    out.append(a)
    return out


def action_lines(domain: Domain) -> tuple[str, ...]:
    """Each action of ``domain`` as a prompt states it: its call form with
    parameters, the precondition and the effects, in PDDL."""
    from veriplan.pddl.writer import effect_to_pddl, formula_to_pddl

    out = []
    for a in domain.actions:
        params = " ".join(p.name if p.type == "object" else f"{p.name} - {p.type}"
                          for p in a.params)
        call = f"({a.name}{' ' + params if params else ''})"
        effects = " ".join(effect_to_pddl(e) for e in a.effects)
        out.append(f"{call} requires {formula_to_pddl(a.precondition)}; effects: {effects}")
    return tuple(out)


def describe(atom: Atom, cfg: PlanBenchConfig | None) -> str:
    """The fact in words (PlanBench's template) or, without one, in PDDL."""
    if cfg is not None:
        try:
            text = cfg.describe_atom(atom)
            if text.strip():
                return text
        except VeriplanError:
            pass
    return str(atom)


def hidden_task(domain_path: str | Path, problem_path: str | Path,
                config_path: str | Path | None = None, *, id: str | None = None,
                cap: int = CAP, seed: int = 0) -> HiddenTask:
    """The hidden-fact task of one PDDL problem (deterministic in the files,
    ``cap`` and ``seed``)."""
    if cap < 1:
        raise ConfigError(f"cap={cap}: at least 1 withheld fact")
    dom, prob = str(domain_path), str(problem_path)
    task = _fresh_task(dom, prob)
    cfg = _config(str(config_path)) if config_path else None
    plan = reference_plan(task)
    types = type_predicates(task, cfg)
    support = [a for a in supporting_facts(task, plan)
               if not (len(a.args) == 1 and a.pred in types)]
    tid = id or f"{task.domain.name}/{Path(prob).stem}"
    rng = random.Random(f"{FAMILY}:{tid}:{seed}")
    withheld = sorted(rng.sample(support, min(cap, len(support))))
    candidates = decoy_facts(task, withheld, cfg)
    n_decoys = min(len(candidates), rng.randint(*DECOYS)) if withheld else 0
    decoys = sorted(rng.sample(candidates, n_decoys))

    facts = [(a, True) for a in withheld] + [(a, False) for a in decoys]
    rng.shuffle(facts)  # decoys are not always last
    latent_facts = []
    for i, (a, holds) in enumerate(facts, 1):
        words = describe(a, cfg)
        latent_facts.append(Latent(f"p{i}", words, str(a), holds, (), "fact",
                                   (words,) if words != str(a) else ()))
    hidden = set(withheld)
    visible = tuple(a for a in task.problem.init if a not in hidden)
    visible_task = Task(task.domain, replace(task.problem, init=visible))
    atoms = task.atoms(task.goal.pos) if hasattr(task.goal, "pos") else []
    goal_atoms = [str(a) for a in atoms]
    goal = "reach a state where " + " and ".join(goal_atoms)
    said = [describe(a, cfg) for a in atoms]
    if said != goal_atoms:
        goal += " (" + "; ".join(said) + ")"
    # Every method's prompt names the problem's objects (the goal line is in all of
    # them): an object no fact or goal atom mentions could only be guessed otherwise.
    goal += ". The objects of the task: " + ", ".join(sorted(task.objects))
    resources = tuple(sorted(task.objects))
    payload = {
        "domain": dom, "problem": prob, "config": str(config_path) if config_path else None,
        "withheld": tuple(str(a) for a in withheld), "decoys": tuple(str(a) for a in decoys),
        "visible_task": visible_task, "goal_atoms": tuple(goal_atoms),
        "reference_steps": tuple(str(s) for s in plan), "seed": seed,
        # the oracle's truth beyond the latent facts: the true initial state, closed world
        "closed_world": (frozenset(str(a) for a in task.problem.init),
                         {p: len(ps) for p, ps in task.domain.predicates.items()},
                         frozenset(task.objects)),
    }
    return HiddenTask(tid, FAMILY, goal, tuple(str(a) for a in visible),
                      tuple(latent_facts), (CONSTRAINT,), tuple(str(s) for s in plan),
                      pddl_decider, resources, None, payload, action_lines(task.domain))


def _read_entry(text: str, task: Task, cfg: PlanBenchConfig | None):
    """A step in PDDL form, "(name arg ...)", as such; else PlanBench's words
    (with a config), else PDDL."""
    if cfg is not None and not text.strip().lstrip("0123456789.) ").startswith("("):
        return parse_plan(text, task, format="planbench", config=cfg)
    return parse_plan(text, task, format="pddl")


def pddl_decider(task: HiddenTask, plan: Sequence[str]) -> Judgement:
    """``plan`` (one step per entry) judged on the true problem: entries read
    as no action (``UNREAD``), the first step whose preconditions fail
    (``PRECONDITION``; its name or arguments: ``BAD_ARGUMENTS``), and an unmet
    goal (``GOAL``) when every step executes."""
    if not any(entry.strip() for entry in plan):
        return Judgement.of(Scope.HIDDEN_TASK, [Finding(FindingKind.EMPTY, None, "",
                                                        "no plan")])
    p = task.payload
    real = true_task(p["domain"], p["problem"])
    cfg = _config(p["config"]) if p.get("config") else None
    steps: list[Step] = []
    where: list[int] = []
    out: list[Finding] = []
    for i, entry in enumerate(plan, 1):
        if not entry.strip():
            continue
        parsed = _read_entry(entry, real, cfg)
        for u in parsed.unread:
            out.append(Finding(FindingKind.UNREAD, i, u.text,
                               f"cannot read {u.text!r}: {u.reason}"))
        if not parsed.steps and not parsed.unread:  # prose: a step that is no action
            out.append(Finding(FindingKind.UNREAD, i, entry.strip(),
                               f"no action in {entry.strip()!r}"))
        steps.extend(parsed.steps)
        where.extend([i] * len(parsed.steps))
    from veriplan.verify import validate_plan

    v = validate_plan(real, steps)
    if v.failed_step is not None:
        what = ", ".join(u.pddl() for u in v.unsatisfied)
        kind = FindingKind.PRECONDITION if what else FindingKind.BAD_ARGUMENTS
        out.append(Finding(kind, where[v.failed_step - 1], what or str(v.action),
                           f"{v.action}: {v.detail} on the true problem"))
    elif v.unmet_goals:
        goals = ", ".join(g.pddl() for g in v.unmet_goals)
        out.append(Finding(FindingKind.GOAL, None, goals, f"the plan does not reach {goals}"))
    out.sort(key=lambda x: (x.step is None, x.step or 0))
    return Judgement.of(Scope.HIDDEN_TASK, out)


# ----- sources ------------------------------------------------------------------------------
def problem_files(root: str | Path, domain: str) -> tuple[Path, Path, Path | None, list[Path]]:
    """The domain file, problems folder, PlanBench config and problem files of
    one PlanBench domain under the ``planbench/`` folder ``root``."""
    if domain not in SOURCES:
        raise ConfigError(f"unknown hidden-fact domain {domain!r}; the domains are "
                          f"{', '.join(SOURCES)}")
    dom_rel, pdir_rel, cfg_rel = SOURCES[domain]
    dom, pdir, cfg = Path(root) / dom_rel, Path(root) / pdir_rel, Path(root) / cfg_rel
    if not dom.is_file() or not pdir.is_dir():
        raise DataError(f"hidden-fact {domain}: expected {dom} and {pdir}; is the data "
                        "directory the folder holding planbench/?")
    files = sorted(pdir.glob("*.pddl"), key=_number)
    return dom, pdir, cfg if cfg.is_file() else None, files


def _number(p: Path) -> tuple[int, str]:
    digits = "".join(c if c.isdigit() else " " for c in p.stem).split()
    return (int(digits[0]) if digits else -1, p.name)


def pddl_hidden_tasks(root: str | Path, *, domains: Sequence[str] = tuple(SOURCES),
                      limit: int | None = None, cap: int = CAP, seed: int = 0) -> TaskSet:
    """The hidden-fact tasks of the PlanBench problems under ``root`` (the
    ``planbench/`` folder), ``limit`` per domain; a problem without a plan
    within the search budget, or with no fact to withhold, is skipped with
    its reason."""
    tasks, skipped = [], []
    for d in domains:
        dom, _, cfg, files = problem_files(root, d)
        for f in files[:limit]:
            try:
                t = hidden_task(dom, f, cfg, id=f"{d}/{f.stem}", cap=cap, seed=seed)
            except DataError as exc:
                skipped.append(Skipped(str(f), None, f.stem, str(exc)))
                continue
            if not t.latent:
                skipped.append(Skipped(str(f), None, f.stem, "no initial fact to withhold"))
                continue
            tasks.append(t)
    return TaskSet(tuple(tasks), tuple(skipped), str(root))
