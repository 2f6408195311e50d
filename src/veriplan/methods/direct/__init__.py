"""PlanBench's direct plan generation (zero-shot or one-shot), no feedback: the
baseline every plan-repair method is compared against."""

from __future__ import annotations

from dataclasses import dataclass, replace

from veriplan.llm.client import LLM
from veriplan.methods.backprompt import BackpromptConfig
from veriplan.methods.backprompt import run as _run
from veriplan.methods.result import SolveResult


@dataclass(frozen=True)
class Config:
    one_shot: bool = True  # PlanBench's plan-generation prompts are one-shot
    temperature: float = 0.0
    max_tokens: int = 400
    prompt: str = "planbench"  # or "pddl"


def run(instance, llm: LLM, config: Config, seed: int = 0) -> SolveResult:
    loop = BackpromptConfig(max_attempts=1, temperature=config.temperature,
                            max_tokens=config.max_tokens, seed=seed,
                            one_shot=config.one_shot, prompt=config.prompt)
    return replace(_run(instance, llm, loop, seed), method="direct")
