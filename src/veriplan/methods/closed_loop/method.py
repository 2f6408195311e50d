"""The closed-loop pipeline: SC -> LP -> ST -> CC -> SIM -> VAL, with RC
choosing a repair after each failure and SA archiving every signal."""

from __future__ import annotations

from dataclasses import replace

from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.closed_loop import cc as CC
from veriplan.methods.closed_loop import rc as RC
from veriplan.methods.closed_loop import sc as SC
from veriplan.methods.closed_loop import sim as SIM
from veriplan.methods.closed_loop import st as ST
from veriplan.methods.closed_loop.config import Config
from veriplan.methods.closed_loop.contracts import ConstraintSet, Outcome, SymbolPlan, TextPlan
from veriplan.methods.closed_loop.couplings import Couplings, load_table
from veriplan.methods.closed_loop.sa import SignalAggregator
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import PlanningProblem, Run, SolveResult, as_problem
from veriplan.methods.templates import environment
from veriplan.pddl.task import Task
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl

SYSTEM = ("You write plans for planning problems given in PDDL. Reason only from the "
          "definitions given; names carry no meaning.")

_ENV = environment(__package__)


_OBFUSCATED = ("mystery", "obfuscat", "random")


def names_obfuscated(problem: PlanningProblem) -> bool:
    """Whether the task's names were chosen at random: its problem's name (the
    dataset and instance), its PDDL domain's name or its PlanBench config's
    domain name says Mystery, obfuscated or random."""
    cfg = problem.planbench_config() if problem.planbench is not None else None
    names = (problem.name, problem.task.domain.name, cfg.domain_name if cfg else "")
    return any(word in n.lower() for n in names for word in _OBFUSCATED)


def lp_prompt(task: Task, c: ConstraintSet, previous: str | None, *,
              random_names: bool = True) -> str:
    """LP's prompt, what stays the same first: the domain (the same for every
    instance of it), C's structure, the problem (the same for every attempt),
    then what an attempt changes: the previous plan and RC's directives. A
    model that keeps the state of a prompt's beginning (llama.cpp's context,
    the embedded backend's prefix cache) reads only the changed end again.
    ``random_names``: say that the names were chosen at random (only where they
    were)."""
    return _ENV.get_template("lp.j2").render(
        domain_pddl=domain_to_pddl(task.domain), constraints=SC.render(c, directives=False),
        problem_pddl=problem_to_pddl(task.problem), previous=previous,
        directives=SC.render_directives(c), random_names=random_names)


def solve(problem: PlanningProblem | Task, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    """The pipeline on ``problem`` (answers read as PlanBench natural language
    when the problem has a PlanBench config, else as PDDL actions)."""
    p = as_problem(problem)
    task, planbench = p.task, p.planbench_config()
    emit = observer or quiet
    run = Run("closed-loop", llm)
    binary = config.ablation == "final_validation_only"  # w/o step-wise validation
    stepwise = not binary
    c = SC.comprehend(task, deep=config.ablation != "shallow_constraints",
                      applicable=config.applicable_actions)
    couplings = Couplings(config.coupling_npmi, config.coupling_min_count,
                          load_table(config.couplings) if config.couplings else {})
    sa = SignalAggregator()
    transcript: list[Entry] = []
    previous: str | None = None
    strategy: str | None = None
    best = -1.0
    last_sig = None
    temperature = config.temperature
    sampled_retry_used = False
    random_names = (names_obfuscated(p) if config.random_names == "auto"
                    else config.random_names == "yes")
    last_diag = ""
    attempts = 0
    for attempt in range(1, config.max_attempts + 1):
        attempts = attempt
        random_regen = config.ablation == "random_regeneration" and attempt > 1
        # Random regeneration never adds directives to C: the first prompt again.
        prompt = lp_prompt(task, c, None if random_regen else previous,
                           random_names=random_names)
        emit(Event("prompt", prompt, attempt))
        request = LLMRequest((Message("system", SYSTEM), Message("user", prompt)),
                             temperature=0.7 if random_regen else temperature,
                             max_tokens=config.max_tokens, seed=config.seed,
                             sample_index=attempt - 1 if random_regen or temperature else 0,
                             stop=("[PLAN END]",))
        response = run.llm.complete(request)
        emit(Event("response", response.text, attempt, data={"cached": response.cached}))
        outcome = _check(ST.translate(TextPlan(response.text, attempt), task, planbench), task,
                         stepwise)
        gain_measure = RC.progress(outcome, task, binary=binary)
        sa.record(attempt, strategy, outcome, gain_measure, task)
        steps = [str(s) for s in outcome.plan.steps]
        stages = outcome.stages()
        entry = Entry(attempt, "plan", prompt, response.text, response.cached, steps,
                      [str(u) for u in outcome.plan.unmapped], outcome.verified,
                      "verified" if outcome.verified else "",
                      {"strategy": strategy, "stages": stages})
        transcript.append(entry)
        if outcome.verified:
            emit(Event("verdict", "", attempt, ok=True, plan=tuple(steps), data={"stages": stages}))
            return _result(run, attempts, True, steps, "llm", "", transcript, sa)
        couplings.events = sa.events()
        decision = RC.decide(outcome, task, c, couplings=couplings, binary=binary,
                             oracle=config.applicable_actions)
        last_diag = " ".join(decision.directives)
        entry.verdict = last_diag
        if decision.data:
            entry.data.update(decision.data)
        emit(Event("verdict", last_diag, attempt, ok=False, plan=tuple(steps),
                   data={"strategy": decision.strategy, "stages": stages}))
        # Budget-adaptive retry: no marginal gain and the same failure again?
        sig = RC.signature_of(outcome, binary=binary)
        no_gain = gain_measure <= best + config.min_gain
        best = max(best, gain_measure)
        if no_gain and sig == last_sig:
            if sampled_retry_used:
                entry.data["stopped"] = "no marginal gain after a sampled retry"
                emit(Event("stop", entry.data["stopped"], attempt))
                break
            sampled_retry_used = True
            temperature = config.retry_temperature
            strategy = "budget_adaptive_retry"
        else:
            strategy = decision.strategy
        last_sig = sig
        if config.ablation == "random_regeneration":
            strategy = "random_regeneration"
            continue
        c = replace(c, directives=decision.directives)
        previous = "\n".join(steps) or response.text.strip()[:600]
    fallback = _fallback(task, config)
    if fallback is not None:
        return _result(run, attempts, True, fallback, f"fallback:{config.fallback}", last_diag,
                       transcript, sa)
    return _result(run, attempts, False, [], None, last_diag, transcript, sa)


def _check(plan: SymbolPlan, task: Task, stepwise: bool) -> Outcome:
    """CC gates; SIM runs only on a plan CC passed, VAL only on a plan SIM
    executed (without step-wise validation, on every plan CC passed)."""
    cc = CC.check(plan, task)
    if not cc.passed:
        return Outcome(plan, cc)
    if not stepwise:
        return Outcome(plan, cc, None, SIM.validate(plan, task))
    sim = SIM.simulate(plan, task)
    if not sim.executed:
        return Outcome(plan, cc, sim)
    return Outcome(plan, cc, sim, SIM.validate(plan, task))


def _fallback(task: Task, config: Config) -> list[str] | None:
    if config.fallback == "none":
        return None
    from veriplan.verify import validate_plan

    if config.fallback == "bfs":
        plan = breadth_first(task, config.fallback_depth)
        return plan if plan is not None and validate_plan(task, plan).valid else None
    from veriplan.planners.classical import solve_classical

    r = solve_classical(task, "fd", time_limit=60)
    return [str(s) for s in r.plan] if r.solved else None


def breadth_first(task: Task, depth: int, seconds: float = 60.0) -> list[str] | None:
    """The authors' fallback: breadth-first search to ``depth`` steps, layer by
    layer, so it finds a shortest plan of at most ``depth`` steps whenever one
    exists (None when none does, or after ``seconds``). (Until issue 48 this was
    an iterative-deepening depth-first search whose visited set was shared
    across depths, so a state first met deep on one branch was never expanded
    when met again shallower: it missed plans of up to ``depth`` steps.)"""
    import time

    from veriplan.search.trace import backtrack

    deadline = time.monotonic() + seconds
    start = task.init
    if task.is_goal(start):
        return []
    parent: dict = {start: None}
    layer = [start]
    for _ in range(depth):
        following = []
        for state in layer:
            if time.monotonic() > deadline:
                return None
            for action, nxt in task.successors(state):
                if nxt in parent:
                    continue
                parent[nxt] = (state, action)
                if task.is_goal(nxt):
                    return [str(op) for op in backtrack(parent, nxt)]
                following.append(nxt)
        layer = following
    return None


def _result(run: Run, attempts: int, verified: bool, plan: list[str], solved_by: str | None,
            last: str, transcript: list[Entry], sa: SignalAggregator) -> SolveResult:
    return run.result(verified=verified, plan=plan, attempts=attempts, solved_by=solved_by,
                      last_diagnosis=last, transcript=transcript, signals=sa.attempts)
