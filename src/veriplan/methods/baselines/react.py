"""ReAct (Yao et al., 2023) as the DRIP paper runs it on Blocksworld: thought
and action, one step at a time, with either

- ``env="symbolic"``: the PDDL model executes each action and answers with the
  new condition, or says the action cannot be executed (the paper's ReACT
  (Manual)); a run fails after 5 consecutive unexecutable actions or beyond 40
  steps, as in the paper;
- ``env="llm"``: the model writes the observation itself (its own environment
  model); the plan it produced is validated at the end.

Either way the plan (in DRIP's action space) is mapped back to the user's
domain and validated there, as DRIP's plans are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veriplan.core.plan import Step
from veriplan.domains.blocksworld import action_space, literal_sentence
from veriplan.llm.client import LLM
from veriplan.methods.asking import logged_asker
from veriplan.methods.baselines import render
from veriplan.methods.drip.config import SPACES
from veriplan.methods.drip.ontask import check_on_task
from veriplan.methods.failures import Failure, ReactFailure
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import PlanningProblem, Run, SolveResult, as_problem
from veriplan.methods.settings import check
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan
from veriplan.verify.validator import false_parts

PROBLEM = "pddl"
_FIELD = re.compile(r"^\W*(thought|action|observation)\s*[:：]\s*(.*)$", re.I)
_DONE = re.compile(r"^\W*(done|finish(ed)?|end|stop)\W*$", re.I)


@dataclass(frozen=True)
class Config:
    env: str = "symbolic"  # or "llm"
    action_space: str = "relaxed"
    max_steps: int = 40  # the paper: a run fails when the plan exceeds 40 steps
    max_invalid: int = 5  # ... or after 5 consecutive unexecutable actions
    temperature: float = 0.0
    max_tokens: int = 200  # per turn
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, choices={"env": ("symbolic", "llm"), "action_space": SPACES},
              minimum={"max_steps": 1, "max_invalid": 1, "temperature": 0.0, "max_tokens": 1})


def read_turn(answer: str) -> dict[str, str]:
    """The first Thought, Action and Observation lines of an answer."""
    out: dict[str, str] = {}
    for line in answer.splitlines():
        m = _FIELD.match(line)
        if m and m.group(1).lower() not in out:
            out[m.group(1).lower()] = m.group(2).strip()
    return out


def solve(problem: PlanningProblem | Task, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    emit = observer or quiet
    run = Run("react", llm)
    space = action_space(config.action_space)
    task = as_problem(problem).task
    stask = space.task(task)
    log: list[Entry] = []
    ask = logged_asker(run.llm, config.temperature, config.seed, log)
    imagine = config.env == "llm"
    condition = space.describe_state(stask, stask.init)
    goal = space.describe_goal(stask)
    state = stask.init
    history: list[dict[str, str]] = []
    plan: list[Step] = []
    invalid = 0  # consecutive
    invalid_total = 0
    stop = "too_long"
    while True:
        prompt = render("react.j2", space=space, condition=condition, goal=goal,
                        history=history, imagine=imagine)
        turn = read_turn(ask("turn", prompt, config.max_tokens,
                             () if imagine else ("\nObservation",)))
        text = turn.get("action", "")
        if _DONE.match(text):
            stop = "done"
            break
        step = space.read_action(text, stask) if text else None
        if step is None:
            observation = ("That is not one action of the forms above; write exactly one "
                           "action.")
            ok = False
        elif imagine:
            plan.append(step)
            observation = turn.get("observation", "")
            ok = True
        else:
            op = stask.operator(step.name, step.args)
            ok = op.applicable(state)
            if ok:
                state = op.apply(state)
                plan.append(step)
                observation = "Done. Condition: " + space.describe_state(stask, state)
            else:
                missing = false_parts(op.precondition, state, stask.facts)
                why = " and ".join(literal_sentence(m) for m in missing) or "it is impossible"
                observation = (f"That action cannot be executed now: it needs that {why}. "
                               "Condition: " + space.describe_state(stask, state))
        invalid = 0 if ok else invalid + 1
        invalid_total += not ok
        history.append({"thought": turn.get("thought", ""), "action": text or "(none)",
                        "observation": observation})
        log[-1].ok = ok if not imagine else None
        log[-1].verdict = f"{text or '(no action)'}: {observation}"
        if step is not None and ok:
            log[-1].plan = [str(step)]
        emit(Event("turn", f"{text or '(none)'}: {observation}", len(history), ok=ok,
                   data=history[-1]))
        if not imagine and ok and stask.goal.holds(state):
            stop = "goal"
            break
        # The paper: a run fails when its plan exceeds max_steps. On the PDDL model a plan
        # of max_steps that has not reached the goal cannot succeed within the limit;
        # with the model as its own environment, it may still say it is done.
        if len(plan) > config.max_steps or (not imagine and len(plan) >= config.max_steps):
            stop = "too_long"
            break
        if invalid >= config.max_invalid:
            stop = "invalid_actions"
            break
    verdict = validate_plan(stask, plan)  # in the method's own action space
    on_task = check_on_task(task, space, plan)
    method_ok = verdict.valid and stop != "too_long"
    verified = method_ok and on_task.valid
    failure: Failure | None = None if verified else (
        on_task.failure(method_ok)
        or (ReactFailure(stop) if stop in (ReactFailure.TOO_LONG, ReactFailure.INVALID_ACTIONS)
            else ReactFailure.PRECONDITION if verdict.failed_step is not None
            else ReactFailure.GOAL))
    diagnosis = ("" if verified else on_task.diagnosis if method_ok else
                 f"in the {space.name} action space: {verdict.feedback()}")
    log.append(on_task.entry())
    emit(Event("verdict", diagnosis, ok=verified, plan=tuple(on_task.plan),
               data={"scope": on_task.scope.value}))
    return run.result(verified=verified, plan=on_task.plan, attempts=len(history),
                      failure=failure,
                      metrics={"size": len(stask.objects), "plan_length": len(on_task.plan),
                               "method_plan": on_task.method_plan,
                               "method_plan_length": len(plan),
                               "steps": len(history), "invalid_actions": invalid_total,
                               "stop": stop, "env": config.env, "action_space": space.name,
                               **on_task.metrics},
                      transcript=log, last_diagnosis=diagnosis, scope=on_task.scope)
