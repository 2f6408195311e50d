"""The baselines SQ-BCP is compared with on hidden-precondition tasks, with the
same prompt structure (goal, hard constraints, known facts, the same k-reveal
variant) and the same oracle: direct prompting, chain of thought, a
Tree-of-Thoughts-style branching (sampled candidate plans, the model votes),
ReAct (its actions may ask the oracle), and Self-Ask (follow-up questions go
to the oracle). Every plan is judged on the true task by its decider."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from veriplan.domains.hidden.metrics import judge
from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.baselines import render
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import Run, SolveResult
from veriplan.methods.settings import check

PROBLEM = "hidden"
_STEP = re.compile(r"^\s*(?:step\s*)?\d+\s*[.):]\s*(.+?)\s*$", re.I)
_PLAN = re.compile(r"^\W*(?:final\s+)?plan\s*:$", re.I)


@dataclass(frozen=True)
class Config:
    k: int = 1  # revealed latent preconditions (the k-reveal protocol)
    reveal_seed: int = 0
    branches: int = 3  # ToT: candidate plans sampled
    max_turns: int = 12  # ReAct turns
    max_questions: int = 8  # Self-Ask follow-up questions
    temperature: float = 0.0
    max_tokens: int = 700
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, minimum={"k": 0, "branches": 1, "max_turns": 1, "max_questions": 0,
                             "temperature": 0.0, "max_tokens": 1})


def read_steps(text: str) -> list[str]:
    """The steps after the last "Plan:" line (the whole answer without one):
    numbered lines, and PDDL action lines, up to the first blank line after
    them."""
    lines = text.splitlines()
    marks = [i for i, line in enumerate(lines) if _PLAN.match(line.split(":")[0] + ":")
             and line.strip().lower().lstrip("#* ").startswith(("plan", "final plan"))]
    body = lines[marks[-1]:] if marks else lines
    steps: list[str] = []
    for i, line in enumerate(body):
        s = line.strip()
        if marks and i == 0:
            s = s.split(":", 1)[1].strip() if ":" in s else ""
        m = _STEP.match(s)
        if m:
            steps.append(m.group(1).strip("* "))
        elif s.startswith("(") and s.endswith(")"):
            steps.append(s)
        elif steps and not s:
            break
    return steps


class _Setting:
    """The variant, the oracle and the prompt values every baseline shares."""

    def __init__(self, task: Any, config: Config) -> None:
        from veriplan.domains.hidden import Oracle
        from veriplan.methods.sqbcp.config import Config as SQConfig
        from veriplan.methods.sqbcp.method import request_for

        req = request_for(task, SQConfig(k=config.k, reveal_seed=config.reveal_seed))
        self.task, self.req = task, req
        self.oracle = req.oracle if req.oracle is not None else Oracle(task)
        self.values = {"goal": req.goal, "constraints": req.constraints,
                       "facts": [k if v else f"not so: {k}" for k, v in req.facts.items()],
                       "pddl": req.pddl is not None, "actions": req.actions, "answers": []}


def _ask(run: Run, log: list[Entry], role: str, prompt: str, config: Config,
         stop: tuple[str, ...] = (), sample: int = 0) -> str:
    req = LLMRequest((Message("user", prompt),), temperature=config.temperature if not sample
                     else max(config.temperature, 0.7), max_tokens=config.max_tokens,
                     seed=config.seed, stop=stop, sample_index=sample)
    resp = run.llm.complete(req)
    log.append(Entry(sum(e.call is not None for e in log) + 1, role, prompt, resp.text,
                     resp.cached))
    return resp.text


def _finish(run: Run, s: _Setting, log: list[Entry], plan: list[str], emit: Observer,
            extra: dict[str, Any] | None = None) -> SolveResult:
    j = judge(s.task, plan)
    verified = bool(plan) and not j["violations"]
    verdict = "no plan read" if not plan else ("no violation" if verified else
                                               "; ".join(j["violations"]))
    for e in reversed(log):
        if e.call is not None and not e.verdict:
            e.plan, e.ok, e.verdict = list(plan), verified, verdict
            break
    for e in log:
        if e.call is not None and not e.verdict:
            e.verdict = "(not judged on its own)"
    emit(Event("verdict", verdict, ok=verified, plan=tuple(plan)))
    metrics = {**j, "queries": s.oracle.calls, "oracle_calls": s.oracle.calls,
               "hypotheses": 0, "latent": s.task.m, "hidden": s.req.hidden,
               "family": s.task.family, "plan_length": len(plan), **(extra or {})}
    failure = None if verified else ("no_plan" if not plan else "violation")
    return run.result(verified=verified, plan=plan, attempts=sum(e.call is not None for e in log),
                      failure=failure, metrics=metrics, transcript=log,
                      last_diagnosis="" if verified else verdict,
                      verified_scope="hidden-precondition task: no violation")


def direct(problem: Any, llm: LLM, config: Config = Config(), *,
           observer: Observer | None = None) -> SolveResult:
    run, s, log = Run("hidden-direct", llm), _Setting(problem, config), []
    text = _ask(run, log, "plan", render("hidden_direct.j2", **s.values), config)
    return _finish(run, s, log, read_steps(text), observer or quiet)


def cot(problem: Any, llm: LLM, config: Config = Config(), *,
        observer: Observer | None = None) -> SolveResult:
    run, s, log = Run("hidden-cot", llm), _Setting(problem, config), []
    text = _ask(run, log, "plan", render("hidden_cot.j2", **s.values), config)
    return _finish(run, s, log, read_steps(text), observer or quiet)


def tot(problem: Any, llm: LLM, config: Config = Config(), *,
        observer: Observer | None = None) -> SolveResult:
    """Branching: ``branches`` sampled chain-of-thought plans, then one vote."""
    run, s, log = Run("hidden-tot", llm), _Setting(problem, config), []
    plans = []
    for b in range(config.branches):
        text = _ask(run, log, "branch", render("hidden_cot.j2", **s.values), config, sample=b)
        steps = read_steps(text)
        log[-1].plan, log[-1].verdict = steps, f"candidate {b + 1}: {len(steps)} step(s)"
        if steps:
            plans.append(steps)
    if not plans:
        return _finish(run, s, log, [], observer or quiet, {"branches": 0})
    best = 0
    if len(plans) > 1:
        vote = _ask(run, log, "vote", render("hidden_tot_vote.j2", plans=plans, **s.values),
                    config)
        m = re.search(r"best\s*[:=]?\s*(?:candidate\s*)?(\d+)", vote, re.I)
        best = int(m.group(1)) - 1 if m and 0 < int(m.group(1)) <= len(plans) else 0
    return _finish(run, s, log, plans[best], observer or quiet,
                   {"branches": len(plans), "chosen": best + 1})


def react(problem: Any, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    run, s, log = Run("hidden-react", llm), _Setting(problem, config), []
    emit = observer or quiet
    history: list[dict[str, str]] = []
    plan: list[str] = []
    for _ in range(config.max_turns):
        text = _ask(run, log, "turn", render("hidden_react.j2", history=history, **s.values),
                    config, stop=("\nObservation",))
        thought = _field(text, "thought")
        action = _field(text, "action")
        if re.match(r"^\W*finish", action, re.I):
            log[-1].verdict = "finish"
            break
        if action.lower().startswith("ask:"):
            answer = s.oracle.ask(action[4:].strip())
            observation = answer.text
            log[-1].verdict = f"asked: {answer.status}"
        elif action.lower().startswith("step:"):
            plan.append(action[5:].strip())
            observation = "Noted."
            log[-1].verdict = "step noted"
        else:
            observation = 'Write one action: "Ask: ...", "Step: ..." or "Finish".'
            log[-1].ok, log[-1].verdict = False, "not an action"
        history.append({"thought": thought, "action": action or "(none)",
                        "observation": observation})
        emit(Event("turn", f"{action or '(none)'}: {observation}"))
    return _finish(run, s, log, plan, emit, {"turns": len(history)})


def self_ask(problem: Any, llm: LLM, config: Config = Config(), *,
             observer: Observer | None = None) -> SolveResult:
    """Self-Ask: follow-up questions, each answered by the oracle, then a plan."""
    run, s, log = Run("self-ask", llm), _Setting(problem, config), []
    asked: list[tuple[str, str]] = []
    text = ""
    for _ in range(config.max_questions + 1):
        text = _ask(run, log, "self-ask", render("hidden_selfask.j2", asked=asked, **s.values),
                    config, stop=("\nIntermediate answer",))
        m = re.search(r"follow[- ]?up\s*:\s*(.+)", text, re.I)
        if m and "needed here: no" not in text.lower() and len(asked) < config.max_questions:
            question = m.group(1).strip()
            answer = s.oracle.ask(question)
            asked.append((question, answer.text))
            log[-1].verdict = f"asked: {answer.status}"
            continue
        break
    return _finish(run, s, log, read_steps(text), observer or quiet,
                   {"questions": len(asked)})


def _field(text: str, name: str) -> str:
    for line in text.splitlines():
        m = re.match(rf"^\W*{name}\s*:\s*(.*)$", line, re.I)
        if m:
            return m.group(1).strip()
    return ""


METHODS: dict[str, Callable[..., SolveResult]] = {
    "hidden-direct": direct, "hidden-cot": cot, "hidden-tot": tot, "hidden-react": react,
    "self-ask": self_ask}


def _spec(name: str, fn: Callable[..., SolveResult]):
    from veriplan.methods import MethodSpec

    return MethodSpec(name, fn, Config, PROBLEM)


DIRECT, COT = _spec("hidden-direct", direct), _spec("hidden-cot", cot)
TOT = _spec("hidden-tot", tot)
REACT, SELF_ASK = _spec("hidden-react", react), _spec("self-ask", self_ask)
