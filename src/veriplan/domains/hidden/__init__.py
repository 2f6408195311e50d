"""Tasks with hidden preconditions (SQ-BCP's protocol): one task format, the
k-reveal protocol and one oracle, over three families: hidden-fact PDDL
(PlanBench problems with initial facts withheld), recipes (RecipeNLG's CSV
format) and how-to projects (WikiHow's format)."""

from veriplan.domains.hidden.task import (
    Answer,
    HiddenTask,
    Latent,
    Oracle,
    Variant,
    Violation,
    mentions,
    resource_decider,
    words,
)

__all__ = ["Answer", "HiddenTask", "Latent", "Oracle", "Variant", "Violation", "mentions",
           "resource_decider", "words"]
