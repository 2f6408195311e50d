"""What SQ-BCP knows of a task before it asks anything, per family: the
initial state w0 (facts the prompt states), the goal w*, how a proposed
hypothesis becomes typed effects, and the family's exact verifier.

Natural-language families (recipes, how-to, a person's request): the model's
own preconditions and effects; the goal requires the product the task makes
(the dish, the artefact) as r*, and PULLBACKVERIFY replays the chain on
grounded facts only (what the prompt states, the oracle's answers, the effects
of the chain's earlier steps): each step's preconditions and the resources it
uses up must be grounded there, no step may use an item grounded as missing,
and the product must be made by a step from something the chain has.
Hidden-fact PDDL: the model names actions; their preconditions and effects are
the domain's (the domain is part of the task the user gives), and
PULLBACKVERIFY is veriplan's validator on the grounded initial state: every
fact it uses was stated or answered by the oracle. Either way a fact no
grounded knowledge decides makes the verdict unknown, never accepted.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from veriplan.core import Atom
from veriplan.core.verdict import Finding, FindingKind, Verdict
from veriplan.domains.hidden.task import atom_key, tokens, uses
from veriplan.methods.sqbcp.hypothesis import Hypothesis, Precondition
from veriplan.methods.sqbcp.request import Request
from veriplan.methods.sqbcp.world import GOAL, UNK, Effects, Goal, World, initial_world, key

Ground = Callable[[World], World]  # a state with what the oracle said added


def verdict_of(findings: Iterable[Finding]) -> Verdict:
    """Valid with no finding, unknown when every finding is ungrounded, else
    invalid (the rule of :meth:`~veriplan.core.verdict.Judgement.of`)."""
    kinds = [f.kind for f in findings]
    if any(k is not FindingKind.UNGROUNDED for k in kinds):
        return Verdict.INVALID
    return Verdict.UNKNOWN if kinds else Verdict.VALID


class NaturalLanguage:
    """The model's hypotheses as they are. The goal w* requires the product
    (r* = {product: 1}) and the goal predicate (the model's claim that the
    work is done, l*; never enough by itself)."""

    kind = "natural"

    def __init__(self, req: Request) -> None:
        from veriplan.domains.hidden.howto import artefact

        self.req = req
        self.product = req.product or artefact(req.goal)
        self.goal = Goal({self.product: 1}, req.goal, {GOAL: True}, req.time_budget)
        self.w0 = World({}, "nothing done yet", {key(k): v for k, v in req.facts.items()},
                        0.0, req.time_budget)

    def hypothesis(self, h: Hypothesis) -> Hypothesis | None:
        if h.completes_goal:
            h = replace(h, eff=replace(h.eff, dl={**h.eff.dl, GOAL: True}))
        return h

    def question(self, p: Precondition) -> str:
        return f"Is it true that {p.text.rstrip('.?')}? (about: {p.subject})"

    def verify(self, chain: Sequence[Hypothesis], learned: Mapping[str, bool],
               ground: Ground) -> list[Finding]:
        """PULLBACKVERIFY on grounded facts only, never the model's labels:
        the chain replayed from w0, each step (a bridge, a step) at the state
        it runs in. A precondition grounded false there is ``PRECONDITION``,
        one nothing grounded decides ``UNGROUNDED``; a resource it uses up must
        be there (made by an earlier step, or at hand by a stated fact or an
        answer): else ``RESOURCE`` (grounded missing or used up) or
        ``UNGROUNDED``; an item the step's words use that a stated fact or an
        answer says the user lacks is ``MISSING_ITEM``, whatever else the step
        names. The product r* must be made (``NOT_PRODUCED``) by a step that
        uses up something (made from nothing: ``UNGROUNDED``)."""
        said = {**{key(k): v for k, v in self.req.facts.items()},
                **{key(k): v for k, v in learned.items()}}
        lacking = [k for k, v in said.items() if v is False and not atom_key(k)]
        w = ground(self.w0)
        found: list[Finding] = []
        for i, h in enumerate(chain, 1):
            text = " ".join(h.steps) or h.action
            for p in h.pre:
                v = w.value(p.text, p.subject)
                if v is False:
                    found.append(Finding(FindingKind.PRECONDITION, i, p.text,
                                         f"{p.text} is false where the step runs"))
                elif v is None:
                    found.append(Finding(FindingKind.UNGROUNDED, i, p.text,
                                         f"{p.text}: no stated fact, answer or earlier step "
                                         "says it holds"))
            inputs = 0
            for k, n in h.eff.dr.items():
                if n >= 0:
                    continue
                if k in w.r:
                    ok, why = w.r[k] + n >= 0, f"uses more {k} than there is"
                else:
                    at_hand = w.value(k, k)
                    ok = at_hand is True
                    why = (f"uses {k}, which the user does not have" if at_hand is False
                           else "")
                if ok:
                    inputs += 1
                else:
                    found.append(Finding(FindingKind.RESOURCE if why else
                                         FindingKind.UNGROUNDED, i, k, why or
                                         f"uses {k}: no stated fact, answer or earlier step "
                                         "says it is there"))
            held = [k for k, v in w.l.items() if v] + [k for k, n in w.r.items() if n > 0]
            seen: set[str] = set()
            for fact in lacking:
                name = " ".join(tokens(fact))  # "you have butter" -> "butter"
                if not name or name in seen:
                    continue
                seen.add(name)
                if uses(text, name, held):
                    found.append(Finding(FindingKind.MISSING_ITEM, i, name,
                                         f"uses {name}, which the user does not have"))
            before = w.amount(self.product)
            w = ground(w.apply(h.eff))
            if w.amount(self.product) > before and not inputs:
                found.append(Finding(FindingKind.UNGROUNDED, i, self.product,
                                     f"makes {self.product} from nothing: the step uses up "
                                     "nothing the chain has"))
        if w.amount(self.product) < 1:
            found.append(Finding(FindingKind.NOT_PRODUCED, None, self.product,
                                 f"no step makes {self.product}"))
        return found

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

    def verify(self, chain: Sequence[Hypothesis], learned: Mapping[str, bool],
               ground: Ground) -> list[Finding]:
        """The validator on the initial state made of grounded facts only. A
        failed precondition that a stated fact or an answer makes false (or
        that was grounded true and a step deleted) is ``PRECONDITION``; one
        nothing grounded decides is ``UNGROUNDED``; a goal unmet is ``GOAL``."""
        from veriplan.verify import validate_plan

        said = {**{key(k): v for k, v in self.req.facts.items()},
                **{key(k): v for k, v in learned.items()}}
        atoms = []
        for k in [k for k, v in said.items() if v]:
            parts = k.strip().strip("()").split()
            if parts:
                atoms.append(Atom(parts[0], tuple(parts[1:])))
        task = copy.copy(self.task)
        task.init = self.task.facts.state(atoms)
        steps = [s for h in chain for s in h.steps]
        result = validate_plan(task, steps)
        if result.valid:
            return []
        if result.failed_step is not None:
            out = []
            for u in result.unsatisfied:
                atom = key(u.pddl())
                kind = FindingKind.PRECONDITION if atom in said else FindingKind.UNGROUNDED
                out.append(Finding(kind, result.failed_step, atom, result.feedback()))
            return out or [Finding(FindingKind.BAD_ARGUMENTS, result.failed_step,
                                   str(result.action), result.feedback())]
        return [Finding(FindingKind.GOAL, None, ", ".join(g.pddl() for g in result.unmet_goals),
                        result.feedback())]

    def describe(self, w: World) -> list[str]:
        return [k if v else f"not {k}" for k, v in sorted(w.l.items())]


def grounding_for(req: Request) -> NaturalLanguage | HiddenPDDL:
    return HiddenPDDL(req) if req.pddl is not None else NaturalLanguage(req)
