"""Ask for a plan, verify it, feed the verifier's diagnosis back, retry.

The prompt is PlanBench's plan-generation prompt when a PlanBench config is
given (answers read as PlanBench natural language), else the task in PDDL
(answers read as ``(action args)`` lines). Only a plan the validator accepts
is reported as verified.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from importlib import resources

import jinja2

from veriplan.errors import ConfigError
from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.backprompt.config import BackpromptConfig
from veriplan.methods.result import SolveResult, finish
from veriplan.pddl.ast import Atom
from veriplan.pddl.task import Task
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl
from veriplan.planio import ParsedPlan, PlanBenchConfig, parse_plan, render_prompt
from veriplan.verify import ValidationResult, validate_plan

Event = Callable[[str, dict], None]

_ENV = jinja2.Environment(
    loader=jinja2.FunctionLoader(
        lambda name: resources.files(__package__).joinpath("prompts", name).read_text()),
    undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)


def first_prompt(task: Task, planbench: PlanBenchConfig | None,
                 example: tuple[Task, list] | None = None) -> str:
    """PlanBench's prompt (one-shot with ``example = (task, plan)``), else PDDL."""
    if planbench is not None:
        return render_prompt(task, planbench, example=example)
    return _ENV.get_template("pddl_task.j2").render(
        domain_pddl=domain_to_pddl(task.domain), problem_pddl=problem_to_pddl(task.problem))


def diagnosis(parsed: ParsedPlan, result: ValidationResult,
              planbench: PlanBenchConfig | None) -> str:
    """What was wrong, for the model: unread lines first, then the verifier."""
    parts = [f"Line {u.line} ({_clip(u.text)!r}) could not be read as an action."
             for u in parsed.unread[:3]]
    if not parsed.steps:
        forms = (", ".join(f'"{t.format(*["X"] * t.count("{}"))}"'
                           for t in planbench.actions.values()) if planbench is not None
                 else "(action-name argument ...)")
        parts.append(f"No action could be read from the answer. Write only the plan, one "
                     f"action per line, each in one of these forms: {forms}.")
    elif planbench is not None:
        parts.append(_describe(result, planbench))
    else:
        parts.append(result.feedback()[0].upper() + result.feedback()[1:] + ".")
    return " ".join(parts)


def _clip(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _describe(result: ValidationResult, cfg: PlanBenchConfig) -> str:
    """The verifier's verdict in the config's words."""
    def atom_text(text: str) -> str:
        neg = text.startswith("(not ")
        words = text.removeprefix("(not ").strip("()").split()
        try:
            desc = cfg.describe_atom(Atom(words[0], tuple(words[1:])))
        except Exception:  # a disjunction or a predicate without a template
            return text
        return f"it is not the case that {desc}" if neg else desc

    if result.failed_step is not None:
        step = result.plan[result.failed_step - 1]
        try:
            act = cfg.describe_step(step)
        except Exception:
            act = str(step)
        if result.unsatisfied:
            need = " and ".join(atom_text(u) for u in result.unsatisfied)
            return (f"Step {result.failed_step} ({act}) cannot be executed, because it needs "
                    f"that {need}, which is false at that point.")
        return f"Step {result.failed_step} ({act}) cannot be executed: {result.detail}."
    goals = " and ".join(atom_text(g) for g in result.unmet_goals)
    return f"The plan can be executed, but at the end it is not true that {goals}."


def solve(task: Task, llm: LLM, config: BackpromptConfig = BackpromptConfig(), *,
          planbench: PlanBenchConfig | None = None, example: tuple[Task, list] | None = None,
          on_event: Event | None = None, method: str = "backprompt") -> SolveResult:
    """Up to ``config.max_attempts`` answers, each verified; the verifier's
    diagnosis of each failed plan goes back to the model."""
    emit = on_event or (lambda kind, data: None)
    start = time.perf_counter()
    calls_before = len(llm.usage.calls)
    fmt = "planbench" if planbench is not None else "pddl"
    messages = [Message("user", first_prompt(task, planbench, example))]
    emit("prompt", {"text": messages[0].content})
    transcript: list[dict] = []
    signals: list[dict] = []
    last = ""
    for attempt in range(1, config.max_attempts + 1):
        request = LLMRequest(tuple(messages), temperature=config.temperature,
                             max_tokens=config.max_tokens, seed=config.seed,
                             stop=("[PLAN END]",))
        response = llm.complete(request)
        emit("response", {"attempt": attempt, "text": response.text,
                          "cached": response.cached})
        parsed = parse_plan(response.text, task, format=fmt, config=planbench)
        result = validate_plan(task, parsed)
        verified = result.valid and parsed.ok
        last = "" if verified else diagnosis(parsed, result, planbench)
        transcript.append({"attempt": attempt, "response": response.text,
                           "plan": [str(s) for s in parsed.steps],
                           "unread": [str(u) for u in parsed.unread],
                           "valid": verified, "diagnosis": last})
        signals.append(attempt_signal(attempt, parsed, result, verified))
        emit("verdict", {"attempt": attempt, "verified": verified, "diagnosis": last,
                         "plan": [str(s) for s in parsed.steps]})
        if verified:
            return _result(method, llm, calls_before, start, attempt, True,
                           [str(s) for s in parsed.steps], "", transcript, signals)
        messages += [Message("assistant", response.text),
                     Message("user", _ENV.get_template("feedback.j2").render(diagnosis=last))]
    return _result(method, llm, calls_before, start, config.max_attempts, False, [], last,
                   transcript, signals)


def run(instance, llm: LLM, config: BackpromptConfig, seed: int = 0) -> SolveResult:
    """The harness entry: one dataset instance, PlanBench prompt when the
    dataset has a config (one-shot when ``config.one_shot``)."""
    cfg = replace(config, seed=seed)
    planbench = instance.planbench_config() if _prompt_kind(cfg.prompt) == "planbench" else None
    return solve(instance.task(), llm, cfg, planbench=planbench,
                 example=instance.example() if cfg.one_shot and planbench else None)


def _prompt_kind(kind: str) -> str:
    if kind not in ("planbench", "pddl"):
        raise ConfigError(f"prompt={kind!r}: use planbench or pddl")
    return kind


def _result(method: str, llm: LLM, calls_before: int, start: float, attempts: int,
            verified: bool, plan: list[str], last: str, transcript: list[dict],
            signals: list[dict]) -> SolveResult:
    return finish(method, llm, calls_before, start, verified=verified, plan=plan,
                  attempts=attempts, last_diagnosis=last, transcript=transcript,
                  signals=signals)


def attempt_signal(attempt: int, parsed: ParsedPlan, result: ValidationResult,
                   verified: bool) -> dict:
    """The per-attempt signal every method reports (see SolveResult.signals)."""
    failed = result.failed_step
    failure = []
    if not verified:
        if parsed.unread or not parsed.steps:
            failure.append("translation")
        if failed is not None:
            failure.append("precondition")
        elif parsed.steps and not result.valid:
            failure.append("goal")
    return {"attempt": attempt, "verified": verified, "failed_step": failed,
            "steps": len(parsed.steps),
            "action": result.plan[failed - 1].name if failed else None,
            "missing": [u.removeprefix("(not ").strip("()").split()[0]
                        for u in result.unsatisfied if u.strip("()")],
            "failure": failure}
