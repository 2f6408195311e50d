"""AutoToS settings, with the paper's numbers."""

from __future__ import annotations

from dataclasses import dataclass

from veriplan.methods.settings import check


@dataclass(frozen=True)
class Config:
    max_calls_per_function: int = 10  # the paper: 10 calls per function
    max_calls: int = 19  # ... 19 in all per domain run
    call_limit: float = 1.0  # seconds per call of a generated function
    search_limit: float = 600.0  # seconds per instance (Step 3 and evaluation)
    examples: int = 10  # held-out instances searched in Step 3 ("up to 10")
    partial_check: bool = True  # the paper's "w/ val"; False: a check that always passes
    completeness: bool = True  # Step 4 (optional in the paper)
    evaluate_progress: bool = True  # accuracy at the paper's three points (Figure 2)
    eval_limit: int = 0  # evaluate on the first N instances only (0: all)
    strict_validation: bool = False  # True: validate every step of a solution where the
    #                                  paper checks the result (crosswords, PrOntoQA) or
    #                                  the actions only (Blocksworld: also each state)
    temperature: float = 0.0  # the paper used greedy decoding ...
    max_tokens: int | None = None  # ... "with maximum context length": None, no limit
    #                                 but the model's context (a number caps each answer)
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, minimum={"max_calls_per_function": 1, "max_calls": 2, "call_limit": 0.001,
                             "search_limit": 0.001, "examples": 0, "eval_limit": 0,
                             "temperature": 0.0, "max_tokens": 1})
