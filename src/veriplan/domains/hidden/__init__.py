"""Tasks with hidden preconditions (SQ-BCP's protocol): one task format, the
k-reveal protocol and one oracle, over three families: hidden-fact PDDL
(PlanBench problems with initial facts withheld; :mod:`.pddl_hidden`), recipes
(RecipeNLG's CSV format; :mod:`.recipes`) and how-to projects (WikiHow's
format; :mod:`.howto`). :mod:`.datasets` makes them benchmark datasets."""

from veriplan.domains.hidden.task import (
    Answer,
    HiddenTask,
    Latent,
    Oracle,
    Variant,
    mentions,
    resource_decider,
    tokens,
    uses,
    words,
)

__all__ = ["Answer", "HiddenTask", "Latent", "Oracle", "Variant", "mentions", "resource_decider",
           "tokens", "uses", "words"]
