"""What SQ-BCP knows of a task before it asks anything, per family: the
initial state w0 (facts the prompt states), the goal w*, how a proposed
hypothesis becomes typed effects, and the family's exact verifier.

Natural-language families (recipes, how-to, a person's request): the model's
own preconditions and effects, the goal predicate set by a hypothesis that
says it completes the goal. Hidden-fact PDDL: the model names actions; their
preconditions and effects are the domain's (the domain is part of the task
the user gives), and PULLBACKVERIFY is veriplan's validator on the grounded
initial state: every fact it uses was stated or answered by the oracle.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from veriplan.core import Atom
from veriplan.methods.sqbcp.hypothesis import Hypothesis, Precondition
from veriplan.methods.sqbcp.world import GOAL, UNK, Effects, Goal, World, initial_world, key


@dataclass
class Request:
    """A planning request under hidden preconditions: the goal, the facts the
    prompt states (with their truth), the oracle, and (for judging only, never
    read while planning) the true task."""

    goal: str
    facts: Mapping[str, bool]
    oracle: Any  # .ask(question) -> Answer
    constraints: tuple[str, ...] = ()
    time_budget: float | None = None
    task: Any = None  # HiddenTask
    pddl: Any = None  # the visible PDDL task (domain, objects, goal) for that family
    hidden: int | None = None  # latent preconditions not revealed (k-reveal)
    actions: tuple[str, ...] = ()  # the actions a step may be (PDDL families), for the prompt
    # The prompt's fact lines as every method's prompt words them, each with the facts
    # it stands for ("not so: you have butter (you could use margarine instead)" stands
    # for "you have butter", "butter" and "margarine"); empty: the facts as they are.
    shown: tuple[tuple[str, tuple[str, ...]], ...] = ()


class NaturalLanguage:
    """The model's hypotheses as they are; the goal is the goal predicate."""

    kind = "natural"

    def __init__(self, req: Request) -> None:
        self.req = req
        self.goal = Goal({}, req.goal, {GOAL: True}, req.time_budget)
        self.w0 = World({}, "nothing done yet", {key(k): v for k, v in req.facts.items()},
                        0.0, req.time_budget)

    def hypothesis(self, h: Hypothesis) -> Hypothesis | None:
        if h.completes_goal:
            h = replace(h, eff=replace(h.eff, dl={**h.eff.dl, GOAL: True}))
        return h

    def question(self, p: Precondition) -> str:
        return f"Is it true that {p.text.rstrip('.?')}? (about: {p.subject})"

    def verify(self, steps: Sequence[str], learned: Mapping[str, bool]) -> list[str]:
        return []

    def describe(self, w: World) -> list[str]:
        """The facts of ``w``: a line of the request's wording while every fact it
        stands for is as stated, else each fact by itself."""
        stated = {key(k): v for k, v in self.req.facts.items()}
        facts, covered = [], set()
        for line, keys in self.req.shown:
            ks = {key(k) for k in keys}
            if all(w.l.get(k) == stated.get(k) for k in ks):
                facts.append(line)
                covered |= ks
        facts += [k if v else f"not so: {k}" for k, v in w.l.items()
                  if k != GOAL and k not in covered]
        facts += [f"{n} x {r}" for r, n in w.r.items() if n]
        return facts


class HiddenPDDL:
    """Actions read against the visible PDDL task; preconditions and effects
    from its domain."""

    kind = "pddl"

    def __init__(self, req: Request) -> None:
        self.req = req
        self.task = req.pddl
        goal = {str(a): True for a in self.task.atoms(self.task.goal.pos)} or {GOAL: True}
        self.goal = Goal({}, "", goal, None)
        self.w0 = initial_world([k for k, v in req.facts.items() if v], "", None,
                                [k for k, v in req.facts.items() if not v])

    def hypothesis(self, h: Hypothesis) -> Hypothesis | None:
        from veriplan.planio import parse_plan
        from veriplan.verify.consistency import check_step

        parsed = parse_plan(h.action, self.task)
        if len(parsed.steps) != 1 or parsed.unread:
            return None
        step = parsed.steps[0]
        if check_step(self.task, step) is not None:
            return None  # an unknown action or object, a wrong arity or type
        try:
            op = self.task.operator(step.name, step.args)
        except Exception:  # a name or arity the domain does not have
            return None
        if op.pre_neg or op.pre_rest or op.cond_effects:
            return None  # the hidden-fact family is STRIPS (Blocksworld, Logistics)
        pre = tuple(Precondition(str(a), str(a), UNK, UNK) for a in self.task.atoms(op.pre_pos))
        dl = {str(a): False for a in self.task.atoms(op.delete)}
        dl.update({str(a): True for a in self.task.atoms(op.add)})
        return Hypothesis(str(step), pre, Effects({}, None, dl, 0.0), steps=(str(step),))

    def question(self, p: Precondition) -> str:
        return f"Is {p.subject} true in the initial state?"

    def verify(self, steps: Sequence[str], learned: Mapping[str, bool]) -> list[str]:
        """The validator on the initial state made of grounded facts only."""
        from veriplan.verify import validate_plan

        grounded = [k for k, v in {**dict(self.req.facts), **dict(learned)}.items() if v]
        atoms = []
        for k in grounded:
            words = k.strip().strip("()").split()
            if words:
                atoms.append(Atom(words[0], tuple(words[1:])))
        task = copy.copy(self.task)
        task.init = self.task.facts.state(atoms)
        result = validate_plan(task, list(steps))
        return [] if result.valid else [result.feedback()]

    def describe(self, w: World) -> list[str]:
        return [k if v else f"not {k}" for k, v in sorted(w.l.items())]


def grounding_for(req: Request) -> NaturalLanguage | HiddenPDDL:
    return HiddenPDDL(req) if req.pddl is not None else NaturalLanguage(req)
