"""PlanBench's direct plan generation (zero-shot or one-shot), no feedback: the
baseline every plan-repair method is compared against."""

from __future__ import annotations

from dataclasses import dataclass

from veriplan.core.problems import ProblemKind
from veriplan.llm.client import LLM
from veriplan.methods.backprompt import BackpromptConfig
from veriplan.methods.backprompt.method import loop
from veriplan.methods.records import Observer
from veriplan.methods.result import PlanningProblem, SolveResult
from veriplan.methods.settings import check
from veriplan.pddl.task import Task

PROBLEM = ProblemKind.PDDL


@dataclass(frozen=True)
class Config:
    one_shot: bool = True  # PlanBench's plan-generation prompts are one-shot
    temperature: float = 0.0
    max_tokens: int = 400
    prompt: str = "planbench"  # or "pddl"
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, choices={"prompt": ("planbench", "pddl")},
              minimum={"temperature": 0.0, "max_tokens": 1})


def solve(problem: PlanningProblem | Task, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    """One answer, verified; no feedback."""
    once = BackpromptConfig(max_attempts=1, temperature=config.temperature,
                            max_tokens=config.max_tokens, seed=config.seed,
                            one_shot=config.one_shot, prompt=config.prompt)
    return loop(problem, llm, once, observer, "direct")
