"""Zero-shot chain-of-thought plan generation (Kojima et al., 2023), as the DRIP
paper's baseline: one call, reasoning then a plan in DRIP's action space, mapped
back to the user's domain and validated there (as DRIP's plans are)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from veriplan.core.plan import Step
from veriplan.domains.blocksworld import ActionSpace, action_space
from veriplan.llm.client import LLM
from veriplan.methods.asking import logged_asker
from veriplan.methods.baselines import render
from veriplan.methods.drip.config import SPACES
from veriplan.methods.drip.ontask import check_on_task
from veriplan.methods.failures import CotFailure, Failure
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import PlanningProblem, Run, SolveResult, as_problem
from veriplan.methods.settings import check
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

PROBLEM = "pddl"
_PLAN = re.compile(r"^\W*plan\W*$", re.I)


@dataclass(frozen=True)
class Config:
    action_space: str = "relaxed"  # the same space as the method it is compared with
    temperature: float = 0.0
    max_tokens: int = 768  # reasoning and plan
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, choices={"action_space": SPACES}, minimum={"temperature": 0.0,
                                                               "max_tokens": 1})


def read_plan(answer: str, space: ActionSpace, task: Task) -> tuple[list[Step], list[str]]:
    """Actions under the last "Plan:" line (until the first blank line after
    them); without one, every line that reads as an action. Unread lines in
    the plan part are returned too: such a plan counts as not verified."""
    lines = answer.splitlines()
    marks = [i for i, line in enumerate(lines) if _PLAN.match(line)]
    if not marks:
        steps = [s for line in lines if (s := space.read_action(line, task)) is not None]
        return steps, []
    steps, unread = [], []
    for line in lines[marks[-1] + 1:]:
        if not line.strip():
            if steps:
                break
            continue
        step = space.read_action(line, task)
        if step is None:
            unread.append(line.strip())
        else:
            steps.append(step)
    return steps, unread


def solve(problem: PlanningProblem | Task, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    run = Run("cot", llm)
    space = action_space(config.action_space)
    task = as_problem(problem).task
    stask = space.task(task)
    log: list[Entry] = []
    ask = logged_asker(run.llm, config.temperature, config.seed, log)
    answer = ask("plan", render("cot.j2", space=space,
                                condition=space.describe_state(stask, stask.init),
                                goal=space.describe_goal(stask)), config.max_tokens)
    steps, unread = read_plan(answer, space, stask)
    verdict = validate_plan(stask, steps)  # in the method's own action space
    on_task = check_on_task(task, space, steps)
    method_ok = verdict.valid and not unread and bool(steps)
    verified = method_ok and on_task.valid
    failure: Failure | None
    if verified:
        failure = None
    elif (mapping := on_task.failure(method_ok)) is not None:
        failure = mapping
    elif not steps:
        failure = CotFailure.NO_PLAN
    elif unread:
        failure = CotFailure.UNREAD_LINES
    else:
        failure = (CotFailure.PRECONDITION if verdict.failed_step is not None
                   else CotFailure.GOAL)
    diagnosis = ("" if verified else f"{len(unread)} line(s) of the plan could not be read"
                 if unread else on_task.diagnosis if method_ok else
                 f"in the {space.name} action space: {verdict.feedback()}")
    log[0].plan, log[0].unread = on_task.method_plan, unread
    log[0].ok = verified
    log[0].verdict = on_task.scope.describes if verified else diagnosis
    log.append(on_task.entry())
    plan = on_task.plan
    (observer or quiet)(Event("verdict", diagnosis, 1, ok=verified, plan=tuple(plan),
                                    data={"scope": on_task.scope.value}))
    return run.result(verified=verified, plan=plan, failure=failure,
                      metrics={"size": len(stask.objects), "plan_length": len(plan),
                               "method_plan": on_task.method_plan,
                               "method_plan_length": len(steps),
                               "unread_lines": len(unread), "action_space": space.name,
                               **on_task.metrics},
                      transcript=log, last_diagnosis=diagnosis, scope=on_task.scope)
