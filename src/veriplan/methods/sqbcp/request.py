"""What SQ-BCP is asked: a :class:`Request` (the goal, the facts the prompt
states, the oracle, and the true task for judging only), built by
:func:`request_for` from a hidden-precondition task's k-reveal variant, and
the system message every prompt is put with. The baselines compared with
SQ-BCP (:mod:`veriplan.methods.baselines.hidden`) are asked the same."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from veriplan.methods.sqbcp.config import Config

if TYPE_CHECKING:
    from veriplan.domains.hidden import HiddenTask
    from veriplan.domains.hidden.task import Answer
    from veriplan.pddl.task import Task

SYSTEM = ("You plan step by step for a person. Some facts the plan depends on are not "
          "stated; never assume them. Answer only with JSON in the requested form.")


class QuestionOracle(Protocol):
    """Who answers a plan's questions about the hidden facts: the task's
    :class:`~veriplan.domains.hidden.Oracle`, a person
    (:class:`~veriplan.methods.sqbcp.oracle.PersonOracle`), a test's stand-in."""

    def ask(self, question: str) -> Answer: ...


@dataclass
class Request:
    """A planning request under hidden preconditions: the goal, the facts the
    prompt states (with their truth), the oracle, and (for judging only, never
    read while planning) the true task."""

    goal: str
    facts: Mapping[str, bool]
    oracle: QuestionOracle | None  # None: the baselines ask the task's own (SQ-BCP needs one)
    constraints: tuple[str, ...] = ()
    time_budget: float | None = None
    task: HiddenTask | None = None
    pddl: Task | None = None  # the visible PDDL task (domain, objects, goal) for that family
    hidden: int | None = None  # latent preconditions not revealed (k-reveal)
    actions: tuple[str, ...] = ()  # the actions a step may be (PDDL families), for the prompt
    # The prompt's fact lines as every method's prompt words them, each with the facts
    # it stands for ("not so: you have butter (you could use margarine instead)" stands
    # for "you have butter", "butter" and "margarine"); empty: the facts as they are.
    shown: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # What the request makes (the dish, the artefact): the goal's r*. Empty: read
    # from the goal (the object of its verb, :func:`~veriplan.domains.hidden.howto.artefact`).
    product: str = ""


def request_for(problem: HiddenTask | Request, config: Config) -> Request:
    """A :class:`Request` from a hidden-precondition task (the k-reveal variant
    and a fresh oracle) or a request as it is."""
    if isinstance(problem, Request):
        return problem
    from veriplan.domains.hidden import HiddenTask, Oracle
    from veriplan.domains.hidden.task import state_of

    if not isinstance(problem, HiddenTask):
        from veriplan.errors import ConfigError

        raise ConfigError(f"sqbcp plans for a HiddenTask or a Request, not "
                          f"{type(problem).__name__}")
    variant = problem.variant(config.k, config.reveal_seed)
    facts: dict[str, bool] = {f: True for f in problem.known}
    shown = [(f, (f,)) for f in problem.known]
    for p in variant.revealed:
        keys = [p.subject if p.subject.startswith("(") else p.text]
        facts[keys[0]] = p.holds
        if not p.holds:
            facts[p.subject] = False
            keys.append(p.subject)
            for s in p.substitutes:
                facts[s] = True
                keys.append(s)
        shown.append((state_of(p), tuple(keys)))  # worded as every method's prompt words it
    pddl = problem.payload.get("visible_task") if problem.payload else None
    return Request(problem.goal, facts, Oracle(problem), problem.constraints,
                   problem.time_budget, problem, pddl, len(variant.hidden), problem.actions,
                   tuple(shown), problem.product)


__all__ = ["SYSTEM", "QuestionOracle", "Request", "request_for"]
