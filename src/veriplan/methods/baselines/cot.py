"""Zero-shot chain-of-thought plan generation (Kojima et al., 2023), as the DRIP
paper's baseline: one call, reasoning then a plan, validated on the PDDL model
of the action space."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from veriplan.core.plan import Step
from veriplan.domains.blocksworld import ActionSpace, action_space
from veriplan.llm.client import LLM
from veriplan.methods.asking import logged_asker
from veriplan.methods.baselines import render
from veriplan.methods.result import SolveResult, finish
from veriplan.pddl.task import Task
from veriplan.verify import validate_plan

_PLAN = re.compile(r"^\W*plan\W*$", re.I)


@dataclass(frozen=True)
class Config:
    action_space: str = "relaxed"  # the same space as the method it is compared with
    temperature: float = 0.0
    max_tokens: int = 768  # reasoning and plan
    seed: int = 0


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


def solve(task: Task, llm: LLM, config: Config = Config(), *,
          on_event: Callable[[str, dict], None] | None = None) -> SolveResult:
    start, calls_before = time.perf_counter(), len(llm.usage.calls)
    space = action_space(config.action_space)
    stask = space.task(task)
    log: list[dict] = []
    ask = logged_asker(llm, config.temperature, config.seed, log)
    answer = ask("plan", render("cot.j2", space=space,
                                condition=space.describe_state(stask, stask.init),
                                goal=space.describe_goal(stask)), config.max_tokens)
    steps, unread = read_plan(answer, space, stask)
    verdict = validate_plan(stask, steps)
    verified = verdict.valid and not unread and bool(steps)
    if verified:
        failure = None
    elif not steps:
        failure = "no_plan"
    elif unread:
        failure = "unread_lines"
    else:
        failure = "precondition" if verdict.failed_step is not None else "goal"
    if on_event:
        on_event("verdict", {"verified": verified, "plan": [str(s) for s in steps]})
    return finish("cot", llm, calls_before, start, verified=verified,
                  plan=[str(s) for s in steps], failure=failure,
                  metrics={"size": len(stask.objects), "plan_length": len(steps),
                           "unread_lines": len(unread), "action_space": space.name},
                  transcript=[{"attempt": 1, **log[0], "unread": unread}],
                  last_diagnosis="" if verified else verdict.feedback())


def run(instance, llm: LLM, config: Config, seed: int = 0) -> SolveResult:
    return solve(instance.task(), llm, replace(config, seed=seed))
