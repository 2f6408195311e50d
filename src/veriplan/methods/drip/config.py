"""DRIP settings. The paper gives no MAX_ITER or call budget; ours are chosen
to bound a run, and every run records why it stopped."""

from __future__ import annotations

from dataclasses import dataclass

from veriplan.errors import ConfigError
from veriplan.methods.settings import check

ACTUATORS = ("symbolic", "llm")
DECOMPOSERS = ("llm", "regression")
SPACES = ("relaxed", "standard")
# When a decomposition sees the current condition: never (the paper's DRIP: goal
# only), on_conflict (the paper's suggested fix: when executing a node would undo an
# achieved goal fact, the node is dropped and its parent re-decomposed with the
# condition; symbolic actuator only), always.
CONDITIONS = ("never", "on_conflict", "always")


@dataclass(frozen=True)
class Config:
    actuator: str = "symbolic"  # the paper's "Manual" setting, a program in place of a person
    decomposer: str = "llm"  # "regression": the perfect decomposer (exact PDDL regression)
    action_space: str = "relaxed"  # the paper's tower-move actions (section 4.1.1)
    condition: str = "never"
    max_iter: int = 15  # tree levels (Algorithm 1's MAX_ITER)
    max_decompositions: int = 3  # per node, counting re-decompositions
    max_llm_calls: int = 150  # per instance; DRIP(Manual) averaged 5.98 calls in the paper
    temperature: float = 0.0
    max_tokens: int = 200  # per decomposition (a list of actions)
    actuator_max_tokens: int = 400  # the LLM actuator reasons before its verdict
    seed: int = 0

    def __post_init__(self) -> None:
        check(self, choices={"actuator": ACTUATORS, "decomposer": DECOMPOSERS,
                             "action_space": SPACES, "condition": CONDITIONS},
              minimum={"max_iter": 1, "max_decompositions": 1, "max_llm_calls": 1,
                       "temperature": 0.0, "max_tokens": 1, "actuator_max_tokens": 1})
        if self.actuator == "llm" and self.decomposer == "regression":
            raise ConfigError("drip: the regression decomposer reads the true state, which an "
                              "LLM actuator does not have; use actuator=symbolic")
        if self.actuator == "llm" and self.condition == "on_conflict":
            raise ConfigError("drip: condition=on_conflict needs the symbolic actuator to see "
                              "a conflict coming; with actuator=llm use condition=always")
