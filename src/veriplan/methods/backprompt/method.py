"""Ask for a plan, verify it, feed the verifier's diagnosis back, retry.

The prompt is PlanBench's plan-generation prompt when a PlanBench config is
given (answers read as PlanBench natural language), else the task in PDDL
(answers read as ``(action args)`` lines). Only a plan the validator accepts
is reported as verified.
"""

from __future__ import annotations

from veriplan.core.atom import ConditionPart, Literal
from veriplan.llm.client import LLM
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.backprompt.config import BackpromptConfig
from veriplan.methods.records import Entry, Event, Observer, Signal, quiet
from veriplan.methods.result import PlanningProblem, Run, SolveResult, as_problem
from veriplan.methods.templates import environment
from veriplan.pddl.task import Task
from veriplan.pddl.writer import domain_to_pddl, problem_to_pddl
from veriplan.planio import ParsedPlan, PlanBenchConfig, parse_plan, render_prompt
from veriplan.verify import ValidationResult, validate_plan

_ENV = environment(__package__)


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
        said = result.feedback(unread=False)  # the unread lines are named above
        parts.append(said[0].upper() + said[1:] + ".")
    return " ".join(parts)


def _clip(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _describe(result: ValidationResult, cfg: PlanBenchConfig) -> str:
    """The verifier's verdict in the config's words."""
    def atom_text(part: ConditionPart) -> str:
        if not isinstance(part, Literal):
            return part.pddl()  # a disjunction or a failed equality test
        try:
            desc = cfg.describe_atom(part.atom)
        except Exception:  # a predicate without a template
            return part.pddl()
        if not desc:  # a fact the config leaves out of its text (an empty template)
            return part.pddl()
        return desc if part.positive else f"it is not the case that {desc}"

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


def solve(problem: PlanningProblem | Task, llm: LLM,
          config: BackpromptConfig = BackpromptConfig(), *,
          observer: Observer | None = None) -> SolveResult:
    """Up to ``config.max_attempts`` answers, each verified; the verifier's
    diagnosis of each failed plan goes back to the model. PlanBench's prompt
    when the problem has a PlanBench config and ``config.prompt`` is
    "planbench" (one-shot with the problem's example when ``config.one_shot``),
    else the task in PDDL."""
    return loop(problem, llm, config, observer, "backprompt")


def loop(problem: PlanningProblem | Task, llm: LLM, config: BackpromptConfig,
         observer: Observer | None, method: str) -> SolveResult:
    """The loop, reported under ``method`` (PlanBench's direct generation is
    this loop with one attempt)."""
    p = as_problem(problem)
    task = p.task
    emit = observer or quiet
    run = Run(method, llm)
    planbench = p.planbench_config() if config.prompt == "planbench" else None
    example = p.one_shot_example() if config.one_shot and planbench is not None else None
    fmt = "planbench" if planbench is not None else "pddl"
    messages = [Message("user", first_prompt(task, planbench, example))]
    emit(Event("prompt", messages[0].content, attempt=1))
    transcript: list[Entry] = []
    signals: list[Signal] = []
    last = ""
    for attempt in range(1, config.max_attempts + 1):
        request = LLMRequest(tuple(messages), temperature=config.temperature,
                             max_tokens=config.max_tokens, seed=config.seed,
                             stop=("[PLAN END]",))
        response = run.llm.complete(request)
        emit(Event("response", response.text, attempt, data={"cached": response.cached}))
        parsed = parse_plan(response.text, task, format=fmt, config=planbench)
        result = validate_plan(task, parsed)
        verified = result.valid and parsed.ok
        last = "" if verified else diagnosis(parsed, result, planbench)
        plan = [str(s) for s in parsed.steps]
        transcript.append(Entry(attempt, "plan", messages[-1].content, response.text,
                                response.cached, plan, [str(u) for u in parsed.unread],
                                verified, "verified" if verified else last))
        signals.append(attempt_signal(attempt, parsed, result, verified))
        emit(Event("verdict", last, attempt, ok=verified, plan=tuple(plan)))
        if verified:
            return run.result(verified=True, plan=plan, attempts=attempt, last_diagnosis="",
                              transcript=transcript, signals=signals)
        messages += [Message("assistant", response.text),
                     Message("user", _ENV.get_template("feedback.j2").render(diagnosis=last))]
    return run.result(verified=False, plan=[], attempts=config.max_attempts,
                      last_diagnosis=last, transcript=transcript, signals=signals)


def attempt_signal(attempt: int, parsed: ParsedPlan, result: ValidationResult,
                   verified: bool) -> Signal:
    """The per-attempt signal every method reports (see SolveResult.signals)."""
    failed = result.failed_step
    failure = []
    if not verified:
        if parsed.unread or not parsed.steps:
            failure.append("translation")
        if failed is not None:
            failure.append("precondition")
        elif parsed.steps and result.unmet_goals:
            failure.append("goal")
    return Signal(**{"attempt": attempt, "verified": verified, "failed_step": failed,
            "steps": len(parsed.steps),
            "action": result.plan[failed - 1].name if failed else None,
            "missing": list(result.unsatisfied_predicates),
            "failure": failure})
