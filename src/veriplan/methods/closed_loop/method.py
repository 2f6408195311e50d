"""The closed-loop pipeline: SC -> LP -> ST -> CC -> SIM/VAL, with RC choosing a
repair after each failure and SA archiving every signal."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from importlib import resources

import jinja2

from veriplan.errors import ConfigError
from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.closed_loop import cc as CC
from veriplan.methods.closed_loop import rc as RC
from veriplan.methods.closed_loop import sc as SC
from veriplan.methods.closed_loop import sim as SIM
from veriplan.methods.closed_loop import st as ST
from veriplan.methods.closed_loop.config import ABLATIONS, FALLBACKS, Config
from veriplan.methods.closed_loop.contracts import ConstraintSet, TextPlan
from veriplan.methods.closed_loop.sa import SignalAggregator
from veriplan.methods.result import SolveResult, finish
from veriplan.pddl.task import Task
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl
from veriplan.planio import PlanBenchConfig

Event = Callable[[str, dict], None]
SYSTEM = ("You write plans for planning problems given in PDDL. Reason only from the "
          "definitions given; names carry no meaning.")

_ENV = jinja2.Environment(
    loader=jinja2.FunctionLoader(
        lambda name: resources.files(__package__).joinpath("prompts", name).read_text()),
    undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


def lp_prompt(task: Task, c: ConstraintSet, previous: str | None) -> str:
    """LP's prompt: the domain first (a shared prefix across instances, which
    llama.cpp's prompt cache reuses), then C, the problem and repair context."""
    return _ENV.get_template("lp.j2").render(
        domain_pddl=domain_to_pddl(task.domain), constraints=SC.render(c),
        problem_pddl=problem_to_pddl(task.problem), previous=previous)


def _check(config: Config) -> None:
    if config.ablation not in ABLATIONS:
        raise ConfigError(f"ablation={config.ablation!r}: use one of {', '.join(ABLATIONS)}")
    if config.fallback not in FALLBACKS:
        raise ConfigError(f"fallback={config.fallback!r}: use one of {', '.join(FALLBACKS)}")
    if config.max_attempts < 1:
        raise ConfigError("max_attempts must be at least 1")


def solve(task: Task, llm: LLM, config: Config = Config(), *,
          planbench: PlanBenchConfig | None = None, on_event: Event | None = None
          ) -> SolveResult:
    _check(config)
    emit = on_event or (lambda kind, data: None)
    start = time.perf_counter()
    calls_before = len(llm.usage.calls)
    c = SC.comprehend(task, deep=config.ablation != "shallow_constraints")
    sa = SignalAggregator()
    transcript: list[dict] = []
    previous: str | None = None
    strategy: str | None = None
    best = -1.0
    last_sig = None
    temperature = config.temperature
    sampled_retry_used = False
    last_diag = ""
    attempts = 0
    for attempt in range(1, config.max_attempts + 1):
        attempts = attempt
        random_regen = config.ablation == "random_regeneration" and attempt > 1
        # Random regeneration never adds directives to C: the first prompt again.
        prompt = lp_prompt(task, c, None if random_regen else previous)
        emit("prompt", {"attempt": attempt, "text": prompt})
        request = LLMRequest((Message("system", SYSTEM), Message("user", prompt)),
                             temperature=0.7 if random_regen else temperature,
                             max_tokens=config.max_tokens, seed=config.seed,
                             sample_index=attempt - 1 if random_regen or temperature else 0,
                             stop=("[PLAN END]",))
        response = llm.complete(request)
        emit("response", {"attempt": attempt, "text": response.text, "cached": response.cached})
        plan = ST.translate(TextPlan(response.text, attempt), task, planbench)
        check = CC.check(plan, task)
        sim = SIM.simulate(plan, task, stepwise=config.ablation != "final_validation_only")
        gain_measure = RC.progress(plan, sim, task)
        signal = sa.record(attempt, strategy, plan, check, sim, gain_measure)
        entry = {"attempt": attempt, "response": response.text,
                 "plan": [str(s) for s in plan.steps],
                 "unread": [str(u) for u in plan.unmapped], "valid": sim.valid,
                 "strategy": strategy, "signals": signal}
        transcript.append(entry)
        if sim.valid:
            emit("verdict", {"attempt": attempt, "verified": True, "diagnosis": "",
                             "plan": entry["plan"]})
            return _result(llm, calls_before, start, attempts, True,
                           [str(s) for s in plan.steps], "llm", "", transcript, sa)
        decision = RC.decide(plan, check, sim, task, c)
        last_diag = " ".join(decision.directives)
        entry["diagnosis"] = last_diag
        emit("verdict", {"attempt": attempt, "verified": False, "diagnosis": last_diag,
                         "strategy": decision.strategy, "plan": entry["plan"]})
        # Budget-adaptive retry: no marginal gain and the same failure again?
        sig = RC.signature_of(plan, sim)
        no_gain = gain_measure <= best + config.min_gain
        best = max(best, gain_measure)
        if no_gain and sig == last_sig:
            if sampled_retry_used:
                entry["stopped"] = "no marginal gain after a sampled retry"
                emit("stop", {"attempt": attempt, "reason": entry["stopped"]})
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
        previous = "\n".join(str(s) for s in plan.steps) or response.text.strip()[:600]
    fallback = _fallback(task, config)
    if fallback is not None:
        return _result(llm, calls_before, start, attempts, True, fallback,
                       f"fallback:{config.fallback}", last_diag, transcript, sa)
    return _result(llm, calls_before, start, attempts, False, [], None, last_diag,
                   transcript, sa)


def _fallback(task: Task, config: Config) -> list[str] | None:
    if config.fallback == "none":
        return None
    from veriplan.verify import validate_plan

    if config.fallback == "bfs":
        from veriplan.search import Budget, dfs

        # Breadth-first to the authors' depth: iterative deepening keeps memory small.
        for depth in range(config.fallback_depth + 1):
            r = dfs(task, budget=Budget(max_seconds=60), max_depth=depth)
            if r.plan is not None:
                plan = [str(op) for op in r.plan]
                return plan if validate_plan(task, plan).valid else None
        return None
    from veriplan.planners.classical import solve_classical

    r = solve_classical(task, "fd", time_limit=60)
    return [str(s) for s in r.plan] if r.solved else None


def _result(llm: LLM, calls_before: int, start: float, attempts: int, verified: bool,
            plan: list[str], solved_by: str | None, last: str, transcript: list[dict],
            sa: SignalAggregator) -> SolveResult:
    return finish("closed-loop", llm, calls_before, start, verified=verified, plan=plan,
                  attempts=attempts, solved_by=solved_by, last_diagnosis=last,
                  transcript=transcript, signals=sa.attempts)


def run(instance, llm: LLM, config: Config, seed: int = 0) -> SolveResult:
    return solve(instance.task(), llm, replace(config, seed=seed),
                 planbench=instance.planbench_config())
