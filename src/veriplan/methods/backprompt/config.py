"""Settings of the back-prompting loop."""

from __future__ import annotations

from dataclasses import dataclass

from veriplan.methods.settings import check


@dataclass(frozen=True)
class BackpromptConfig:
    # Attempts in all (the first answer plus max_attempts - 1 rounds of feedback).
    # PlanBench's back-prompting experiments allow up to 15 rounds; 5 keeps a run on
    # the embedded 1.5B model to a few minutes on two cores.
    max_attempts: int = 5
    temperature: float = 0.0
    max_tokens: int = 400
    seed: int = 0
    # Harness runs: show a solved example instance first (PlanBench one-shot).
    one_shot: bool = False
    # "planbench": PlanBench's prompt when the dataset has a config; "pddl": always PDDL.
    prompt: str = "planbench"

    def __post_init__(self) -> None:
        check(self, choices={"prompt": ("planbench", "pddl")},
              minimum={"max_attempts": 1, "max_tokens": 1, "temperature": 0.0})
