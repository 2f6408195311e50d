"""SQ-BCP (Qu, "Teaching LLMs to Ask"): hypotheses with labelled
preconditions, refinement of each unknown by bridging then one query, a
bidirectional search that inserts only resolved hypotheses passing the hard
checks, and acceptance only by verification (every precondition resolved,
HARDCHECK, PULLBACKVERIFY). The distance D ranks and prunes, and screens
candidates before the verifier; it never accepts a plan.
"""

from __future__ import annotations

import hashlib
import heapq
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from veriplan.core.verdict import Scope, Verdict
from veriplan.llm.client import LLM
from veriplan.llm.parsing import parse_structured
from veriplan.llm.types import LLMRequest, Message
from veriplan.methods.baselines import hidden as baselines
from veriplan.methods.failures import HiddenTaskFailure
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import Run, SolveResult
from veriplan.methods.sqbcp.config import Config
from veriplan.methods.sqbcp.grounding import HiddenPDDL, NaturalLanguage, grounding_for, verdict_of
from veriplan.methods.sqbcp.hypothesis import (
    Hypothesis,
    Precondition,
    Tally,
    compose,
    hypotheses_schema,
    read_all,
)
from veriplan.methods.sqbcp.request import SYSTEM, Request, request_for
from veriplan.methods.sqbcp.world import (
    GOAL,
    SAT,
    UNK,
    VIOL,
    Distance,
    Effects,
    World,
    hard_check,
    key,
)
from veriplan.methods.templates import renderer

if TYPE_CHECKING:
    import numpy as np

    from veriplan.core.jsonvalue import JSONValue
    from veriplan.domains.hidden import HiddenTask
    from veriplan.domains.hidden.task import Answer



render = renderer(__package__)


@dataclass(order=True)
class _Node:
    priority: float
    order: int
    world: World = field(compare=False)
    chain: tuple[Hypothesis, ...] = field(compare=False, default=())
    needs: tuple[Precondition, ...] = field(compare=False, default=())  # backward nodes


class _Search:
    def __init__(self, req: Request, run: Run, config: Config, emit: Observer,
                 distance: Distance) -> None:
        self.req, self.run, self.config, self.emit = req, run, config, emit
        self.g = grounding_for(req)
        self.distance = distance
        self.tally = Tally()
        self.log: list[Entry] = []
        self.learned: dict[str, bool] = {}
        self.signatures: set[str] = set()
        self.order = itertools.count()
        self.rejected: list[dict[str, list[str]]] = []  # plan (steps), why
        self.expansions = 0
        self.substitutions: list[dict[str, str]] = []
        self.unanswered: set[str] = set()
        self.answers: list[dict[str, str | list[str]]] = []
        self.asked: dict[str, Answer] = {}  # question -> the oracle's answer (asked once)
        self.established = 0  # bridges composed in (``tally.bridges`` counts those tried)
        self.need_sets: set[frozenset[str]] = set()  # backward: need-sets already generated

    # ----- knowledge -------------------------------------------------------------------
    def ground(self, w: World) -> World:
        """``w`` with what the oracle said, where the chain has not changed it."""
        extra = {k: v for k, v in self.learned.items() if key(k) not in w.l}
        return w.with_facts(extra) if extra else w

    def score(self, w: World) -> float:
        return self.distance.score(w, self.g.goal, self.config.tau)

    # ----- the model ---------------------------------------------------------------------
    def propose(self, role: str, prompt: str, limit: int) -> tuple[list[Hypothesis], Entry]:
        schema = hypotheses_schema(limit)
        request = LLMRequest((Message("system", SYSTEM), Message("user", prompt)),
                             temperature=self.config.temperature,
                             max_tokens=self.config.max_tokens, seed=self.config.seed,
                             schema=schema, schema_name="hypotheses")
        response = self.run.llm.complete(request)
        value, error = parse_structured(response.text, schema)
        if value is None:  # read what fits, item by item; the rest is counted
            value, _ = parse_structured(response.text, {})
        hyps, bad = read_all(value, limit) if value is not None else ([], [error or "no JSON"])
        if error and value is not None and not bad:
            bad = [error]
        self.tally.unreadable += len(bad)
        entry = Entry(sum(e.call is not None for e in self.log) + 1, role, prompt,
                      response.text, response.cached, ok=None if hyps else False,
                      verdict=f"{len(hyps)} hypothesis(es) read"
                      + (f"; not read: {'; '.join(bad)}" if bad else ""),
                      data={"hypotheses": [], "none_proposed": not hyps and not bad})
        self.log.append(entry)
        self.emit(Event("call", f"{role}: {entry.verdict}", entry.call, ok=entry.ok))
        out = []
        for h in hyps:
            typed = self.g.hypothesis(h)
            if typed is None:
                self.tally.unreadable += 1
                entry.data["hypotheses"].append({"action": h.action,
                                                 "end": "not an action of the task"})
                continue
            out.append(typed)
        self.tally.proposed += len(out)
        return out, entry

    def record(self, h: Hypothesis, end: str, entry: Entry | None = None) -> None:
        """Why a branch ended (or that it was inserted)."""
        target = entry or next((e for e in reversed(self.log) if e.call is not None), None)
        if target is not None:
            target.data.setdefault("hypotheses", []).append({**h.to_dict(), "end": end})
        if end != "inserted" and not end.startswith("bridge:"):  # a bridge that worked
            self.tally.drop(end.split(":")[0])                     # is no drop

    # ----- refinement (Section 3.4) ------------------------------------------------------
    def refine(self, h: Hypothesis, w: World, depth: int = 0
               ) -> tuple[Hypothesis | None, str, tuple[Hypothesis, ...]]:
        """Resolve every UNK precondition of ``h`` at ``w`` in the fixed order:
        up to T_bridge bridges, then one query, else unresolvable. Once a bridge
        is composed in, the step's remaining preconditions are labelled, bridged
        and queried at the state after the bridge's effects: a fact the bridge
        set or deleted is SAT or VIOL from them, never asked about the initial
        state. Returns the resolved hypothesis (each bridge composed in, score
        min(s1, s2)(1 - epsilon)) and its parts (the bridges, then the step,
        each replayed at its own state by :meth:`verify`); or None, the reason,
        and the parts as labelled when it was dropped."""
        here = w  # where the step is labelled: w, then after each bridge's effects
        bridges: list[Hypothesis] = []
        h = _label_at(h, self.ground(here))
        if h.violated:
            return None, f"violated: {h.violated[0].text}", (h,)
        for text in [p.text for p in h.unknown]:
            p = next((q for q in h.pre if q.text == text and q.label == UNK), None)
            if p is None:
                continue  # resolved on the way (a bridge's effects, an answer)
            b = self.bridge(h, p, here) if depth == 0 else None
            if b is not None:
                bridges.append(b)
                here = here.apply(b.eff)
                pre = tuple(replace(q, label=SAT, how="bridge") if q.text == p.text else q
                            for q in h.pre)
                h = _label_at(replace(h, pre=pre), self.ground(here))
                if h.violated:
                    return None, f"violated after a bridge: {h.violated[0].text}", \
                        (*bridges, h)
                continue
            asked, why = self.query(h, p)
            if asked is None:
                return None, why, (*bridges, h)
            h = _label_at(asked, self.ground(here))
            if h.violated:
                return None, f"violated: {h.violated[0].text}", (*bridges, h)
        return self.joined((*bridges, h)), "", (*bridges, h)

    def joined(self, parts: tuple[Hypothesis, ...]) -> Hypothesis:
        """The parts (bridges, then the step) as one hypothesis: h' (+) h."""
        out = parts[-1]
        for b in reversed(parts[:-1]):
            out = compose(b, out, self.config.epsilon)
        return out

    def bridge(self, h: Hypothesis, p: Precondition, w: World) -> Hypothesis | None:
        """Up to ``t_bridge`` bridging hypotheses for ``p`` at ``w`` (the state
        the step is labelled at), each asked for with the earlier ones and why
        they failed (at temperature 0 the same prompt would give the same step
        again). Bridging stops once ``p`` is known (a bridge's own query
        answered it): the query path takes over. A bridge is credited only when
        its own effects establish ``p``. Returns the resolved bridge (the
        caller composes it with the step)."""
        tried: list[tuple[str, str]] = []
        for _ in range(self.config.t_bridge):
            if self.ground(w).value(p.text, p.subject) is not None:
                return None  # known now (an answer to a bridge's own query): no more bridging
            prompt = render("bridge.j2", goal=self.req.goal, facts=self.g.describe(
                self.ground(w)), action=h.action, need=p.text, subject=p.subject,
                actions=self.req.actions, tried=tried)
            proposals, entry = self.propose("bridge", prompt, 1)
            if not proposals and entry.data.get("none_proposed"):
                return None  # the model knows no step for it: the query path takes over
            if not proposals:
                tried.append(("(an answer that was not a step)", "it could not be read"))
                continue
            b = proposals[0]
            labels = ",".join(q.label for q in h.pre)
            sig = hashlib.sha256("|".join([w.signature(), p.text, labels, b.eff.summary()])
                                 .encode()).hexdigest()
            if sig in self.signatures:
                self.record(b, "bridge cycle: falls back to a query", entry)
                return None
            self.signatures.add(sig)
            self.tally.bridges += 1
            b = replace(b, score=self.score(self.ground(w).apply(b.eff)))
            b, why, parts = self.refine(b, w, 1)  # its own unknowns are queried, not bridged
            if b is None:
                self.record(parts[-1], f"bridge {why}", entry)
                tried.append((proposals[0].action, why))
                continue
            # The bridge's effects, on the state as grounded now (its own queries'
            # answers included), must make p hold; an answer alone is the query's.
            if not _establishes(b, p) \
                    or self.ground(w).apply(b.eff).value(p.text, p.subject) is not True:
                self.record(b, f"bridge does not establish: {p.text}", entry)
                tried.append((b.action, f"it does not make {p.text} hold"))
                continue
            self.record(b, f"bridge: establishes {p.text}", entry)
            self.established += 1
            self.emit(Event("bridge", f"{' then '.join(b.steps)} establishes {p.text}"))
            return b
        return None

    def query(self, h: Hypothesis, p: Precondition) -> tuple[Hypothesis | None, str]:
        """Q(p), put to the oracle once per run: a question asked before
        (another hypothesis with the same precondition, a bridge's own query)
        reuses the earlier answer, with no oracle call."""
        question = self.g.question(p)
        reused = question in self.asked
        if reused:
            answer = self.asked[question]
            self.tally.reused += 1
        else:
            answer = self.asked[question] = self.req.oracle.ask(question)
            self.tally.queries += 1
        status = getattr(answer, "status", "unknown")
        subs = tuple(getattr(answer, "substitutes", ()) or ())
        self.log.append(Entry(None, "query", question, getattr(answer, "text", str(answer)),
                              ok=status != "unknown", verdict=f"{p.subject}: {status}"
                              + (f", substitutes {', '.join(subs)}" if subs else "")
                              + (" (asked before: the answer reused, no oracle call)"
                                 if reused else ""),
                              data={"about": getattr(answer, "about", None),
                                    "reused": reused}))
        self.emit(Event("query", f"{question} -> {getattr(answer, 'text', answer)}"
                        + (" (reused)" if reused else ""), ok=status != "unknown"))
        if not reused:
            self.answers.append({"question": question, "precondition": p.text,
                                 "subject": p.subject, "answer": status,
                                 "substitutes": list(subs)})
        if status == "yes":
            self.learned[key(p.text)] = True
            self.learned[key(p.subject)] = True
            pre = tuple(replace(q, label=SAT, how="query") if q.text == p.text else q
                        for q in h.pre)
            return replace(h, pre=pre), ""
        if status == "no" and subs:
            self.learned[key(p.subject)] = False
            sub = subs[0]
            self.learned[key(sub)] = True
            self.substitutions.append({"for": p.subject, "use": sub})
            keep = [k for k, v in {**self.req.facts, **self.learned}.items() if v]
            return substitute(h, p, sub, keep), ""
        if status == "no":
            self.learned[key(p.text)] = False
            self.learned[key(p.subject)] = False
            return None, f"violated (oracle): {p.text}"
        return None, f"unresolvable: {p.text}"

    # ----- graph insertion ----------------------------------------------------------------
    def insertable(self, w: World) -> list[str]:
        """The hard checks a state must pass to be inserted (a prefix need not
        reach the goal: resources and time only)."""
        return [r for r in hard_check(w, replace(self.g.goal, l={}, r={})) if r]

    def forward(self, node: _Node) -> list[_Node]:
        w = self.ground(node.world)
        prompt = render("forward.j2", goal=self.req.goal, constraints=self.req.constraints,
                        facts=self.g.describe(w), done=[s for h in node.chain for s in h.steps],
                        k=self.config.max_hypotheses, pddl=self.g.kind == "pddl",
                        actions=self.req.actions)
        out = []
        proposals, entry = self.propose("forward", prompt, self.config.max_hypotheses)
        for proposed in proposals:
            h = replace(proposed, score=self.score(w.apply(proposed.eff)))
            h, why, parts = self.refine(h, w)
            if h is None:
                self.record(self.joined(parts), why, entry)
                continue
            child = self.ground(w).apply(h.eff)  # what refinement's answers made known
            problems = self.insertable(child)
            if problems:
                self.record(h, f"hard check: {problems[0]}", entry)
                continue
            # SCORE orders the expansions and applies the pruning threshold (Sections
            # 3.3-3.4): the hypothesis's own score, a composition's min(s1, s2)(1 - eps),
            # so a bridged step ranks below an unbridged one reaching the same state.
            score = h.score if self.config.score_order == "composed" else self.score(child)
            if score < self.config.prune_score:
                self.record(h, f"pruned: score {score:.3f}", entry)
                continue
            self.record(h, "inserted", entry)
            # The chain holds the parts (bridges, then the step), so that verification
            # replays each at its own state.
            out.append(_Node(-score, next(self.order), child, node.chain + parts))
        return out

    def backward(self, node: _Node) -> list[_Node]:
        w0 = self.ground(self.g.w0)
        prompt = render("backward.j2", goal=self.req.goal, constraints=self.req.constraints,
                        facts=self.g.describe(w0), needs=[p.text for p in node.needs],
                        then=[s for h in node.chain for s in h.steps],
                        k=self.config.max_hypotheses, pddl=self.g.kind == "pddl",
                        actions=self.req.actions)
        out = []
        proposals, entry = self.propose("backward", prompt, self.config.max_hypotheses)
        for h in proposals:
            achieved = [p for p in node.needs if _establishes(h, p)]
            if not achieved:
                self.record(h, "backward: establishes nothing required", entry)
                continue
            # Regression: what the step needs becomes required of the forward side; it is
            # resolved where the graphs meet (grounded there, or asked once).
            rest = tuple(p for p in node.needs if p not in achieved)
            undone = next((p for p in rest if _sets(h, p) is False), None)
            if undone is not None:  # what is still required would not hold after the step
                self.record(h, f"backward deletes a required fact: {undone.text}", entry)
                continue
            h = h.relabel(w0)
            new = tuple(p for p in h.pre if p.text not in {q.text for q in rest})
            needs = rest + new
            need_set = frozenset(key(p.text) for p in needs)
            if need_set in self.need_sets:  # expanded (or queued) already: a cycle, a repeat
                self.record(h, "backward need-set seen before", entry)
                continue
            self.need_sets.add(need_set)
            unmet = sum(w0.value(p.text, p.subject) is not True for p in needs)
            score = math.exp(-self.config.alpha_l * unmet / self.config.tau)
            self.record(h, "inserted", entry)
            out.append(_Node(-score, next(self.order), w0, (h,) + node.chain, needs))
        return out

    # ----- meeting and verification (Section 3.6) ----------------------------------------
    def meets(self, f: _Node, b: _Node) -> bool:
        """Every need of ``b`` holds at ``f``: grounded there, or, when unknown,
        answered yes by one query (each question is asked once per run)."""
        w = self.ground(f.world)
        for p in b.needs:
            v = w.value(p.text, p.subject)
            if v is None and key(p.text) not in self.unanswered and p.text != GOAL:
                _, why = self.query(Hypothesis("(meeting point)", (p,), _NO_EFFECT), p)
                if why:
                    self.unanswered.add(key(p.text))
                v = self.ground(f.world).value(p.text, p.subject)
            if v is not True:
                return False
        return True

    def verify(self, chain: tuple[Hypothesis, ...]) -> tuple[bool, list[str], World]:
        """Replay the chain from w0, one step (a bridge, a step) at a time:
        every precondition resolved at the state its own step runs in (a fact
        grounded false there fails it, however it was resolved), then the
        distance screen (skips the verifier, never accepts), HARDCHECK and
        PULLBACKVERIFY (the family's, on grounded facts only: an unknown
        verdict is not accepted)."""
        w = self.ground(self.g.w0)
        reasons: list[str] = []
        for i, h in enumerate(chain, 1):
            pending = [p for p in _label_at(h, w).pre
                       if p.label != SAT and p.how not in _EVIDENCE]
            if pending:
                reasons.append(f"step {i} ({h.action}): {pending[0].text} is "
                               f"{pending[0].label}")
                break
            w = self.ground(w.apply(h.eff))
        if reasons:
            return False, reasons, w
        screen = self.distance.screen(w, self.g.goal, {
            "r": self.config.delta_r, "s": self.config.delta_s, "l": self.config.delta_l,
            "t": self.config.delta_t})
        d = self.distance(w, self.g.goal)
        if d >= self.config.delta_accept:  # D(w_f, w*) < delta_accept (Section 3.1)
            screen.append(f"D = {d:.3g} >= {self.config.delta_accept:g}")
        if screen:
            return False, ["distance screen: " + "; ".join(screen)], w
        reasons = hard_check(w, self.g.goal)
        if reasons:
            return False, ["hard check: " + r for r in reasons], w
        findings = self.g.verify(chain, self.learned, self.ground)
        verdict = verdict_of(findings)
        if verdict is Verdict.VALID:
            return True, [], w
        return False, [f"pullback ({verdict.value}): " + "; ".join(str(f) for f in findings)], w

    def search(self) -> tuple[tuple[Hypothesis, ...] | None, str]:
        w0 = self.ground(self.g.w0)
        goal_needs = tuple(Precondition(k, k, UNK) for k, v in self.g.goal.l.items() if v)
        fwd = [_Node(-self.score(w0), next(self.order), w0)]
        root = _Node(-1.0, next(self.order), w0, (), goal_needs)
        self.need_sets.add(frozenset(key(p.text) for p in goal_needs))
        bwd = [root] if self.config.bidirectional else []  # the goal is met either way
        seen_f, seen_b = list(fwd), [root]
        tried: set[tuple[int, int]] = set()
        turn = itertools.cycle(("f", "b") if self.config.bidirectional else ("f",))
        while self.expansions < self.config.t_max:
            found = self.meet(seen_f, seen_b, tried)
            if found is not None:
                return found, "accepted"
            side = next(turn)
            frontier = fwd if side == "f" or not bwd else bwd
            if not frontier:
                frontier = fwd or bwd
            if not frontier:
                return None, "frontier empty (every hypothesis dropped or pruned)"
            node = heapq.heappop(frontier)
            self.expansions += 1
            if frontier is fwd:
                kids = self.forward(node)
                seen_f += kids
                for k in kids:
                    heapq.heappush(fwd, k)
            else:
                kids = self.backward(node)
                seen_b += kids
                for k in kids:
                    heapq.heappush(bwd, k)
        found = self.meet(seen_f, seen_b, tried)
        return (found, "accepted") if found is not None else (None, "T_max expansions")

    def meet(self, fs: list[_Node], bs: list[_Node], tried: set[tuple[int, int]]
             ) -> tuple[Hypothesis, ...] | None:
        for f in fs:
            for b in bs:
                if (f.order, b.order) in tried:
                    continue
                tried.add((f.order, b.order))
                chain = f.chain + b.chain
                if not chain:
                    continue  # no plan yet: the goal is not asked about (meets() would)
                if not self.meets(f, b):
                    continue
                ok, why, _ = self.verify(chain)
                self.log.append(Entry(None, "verify", response=" | ".join(
                    s for h in chain for s in h.steps), ok=ok,
                    verdict="accepted" if ok else "; ".join(why)))
                self.emit(Event("verify", "accepted" if ok else "; ".join(why), ok=ok))
                if ok:
                    return chain
                self.rejected.append({"plan": [s for h in chain for s in h.steps],
                                      "why": why})
        return None


_NO_EFFECT = Effects()


_EVIDENCE = ("query", "substitution", "bridge")  # resolved during refinement


def _sets(h: Hypothesis, p: Precondition) -> bool | None:
    """What ``h``'s effects alone make of ``p``: True, False, or None (untouched)."""
    return World({}, "", {}, 0.0).apply(h.eff).value(p.text, p.subject)


def _establishes(h: Hypothesis, p: Precondition) -> bool:
    return _sets(h, p) is True or (p.text == GOAL and h.completes_goal)


def _label_at(h: Hypothesis, w: World) -> Hypothesis:
    """``h`` labelled at ``w``: as :meth:`Hypothesis.relabel`, except that a
    precondition resolved by evidence (an answer about the initial state, a
    bridge) is VIOL where ``w`` grounds it false (a bridge, or an earlier step,
    deleted it since)."""
    h = h.relabel(w)
    pre = tuple(replace(p, label=VIOL, how="known")
                if p.how in _EVIDENCE and w.value(p.text, p.subject) is False else p
                for p in h.pre)
    return replace(h, pre=pre)


def substitute(h: Hypothesis, p: Precondition, sub: str, keep: Sequence[str] = ()
               ) -> Hypothesis:
    """The hypothesis rewritten to use ``sub`` where it used ``p.subject``:
    every whole-word use (plural or singular), nothing inside another word
    ("buttermilk" stays) or inside a longer name in ``keep`` (things the user
    has). A step's text is rewritten as the task's reference is
    (:func:`~veriplan.domains.hidden.common.adapt_step`: a mention as its
    first word, a verb, stays and the step says "use ... instead of ...").
    When the step never names the whole subject, its head noun is rewritten
    ("glue" for "wood glue")."""
    from veriplan.domains.hidden.common import adapt_step
    from veriplan.domains.hidden.task import phrase_pattern

    parts = p.subject.split()
    names = [p.subject] + ([parts[-1]] if len(parts) > 1 else [])

    def named(text: str) -> str | None:  # the whole subject, else its head noun
        return next((n for n in names if (pat := phrase_pattern(n)) is not None
                     and pat.search(text)), None)

    def step(text: str) -> str:
        name = named(text)
        return adapt_step(text, name, sub, keep) if name else text

    def words_of(text: str) -> str:  # a precondition or a resource name: no verb to keep
        name = named(text)
        pat = phrase_pattern(name) if name else None
        if name is None or pat is None:
            return text
        spans = [m.span() for k in keep if _longer(k, name)
                 for m in (phrase_pattern(k) or pat).finditer(text)]
        return pat.sub(lambda m: m.group(0) if any(a <= m.start() and m.end() <= b
                                                   for a, b in spans) else sub, text)

    pre = tuple(replace(q, text=words_of(q.text), subject=sub, label=SAT, how="substitution")
                if q.text == p.text else q for q in h.pre)
    dr = {words_of(k): v for k, v in h.eff.dr.items()}
    return replace(h, action=step(h.action), pre=pre, steps=tuple(step(s) for s in h.steps),
                   eff=replace(h.eff, dr=dr))


def _longer(name: str, than: str) -> bool:
    from veriplan.domains.hidden.task import words

    return words(than) < words(name)


def make_distance(config: Config) -> tuple[Distance, str]:
    """D with the d_s the config asks for, and which one was used."""
    from veriplan.text import embeddings

    use = config.embeddings
    if use == "auto":
        use = "minilm" if embeddings.available() else "lexical"
    if use == "minilm":
        encoder = embeddings.Encoder.load()
        memo: dict[str, np.ndarray] = {}

        def d_s(a: str, b: str) -> float:
            missing = [t for t in (a, b) if t not in memo]
            if missing:
                for t, v in zip(missing, encoder.encode(missing), strict=True):
                    memo[t] = v
            return float(embeddings.cosine_distance(memo[a], memo[b]))
    else:
        d_s = embeddings.lexical_distance
    return Distance(d_s, config.alpha_r, config.alpha_s, config.alpha_l, config.alpha_t), use


def solve(problem: HiddenTask | Request, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None) -> SolveResult:
    """SQ-BCP on a hidden-precondition task (or a person's :class:`Request`).
    ``verified`` means the method accepted a plan and, when the true task is
    known, the task's decider found no violation in it."""
    if config.ablation != "none":
        return _ladder(problem, llm, config, observer)
    run = Run("sqbcp", llm)
    req = request_for(problem, config)
    distance, d_s = make_distance(config)
    search = _Search(req, run, config, observer or quiet, distance)
    chain, stop = search.search()
    plan = [s for h in chain for s in h.steps] if chain else []
    relied = [{"precondition": p.text, "how": p.how or "known"}
              for h in chain or () for p in h.pre]
    return finish(run, search, req, plan, chain is not None, stop, d_s, relied)


def _ladder(problem: HiddenTask | Request, llm: LLM, config: Config, observer: Observer | None
            ) -> SolveResult:
    """A lower rung of the ablation ladder, with the same variant and oracle.
    The CoT rung is Table 2's backbone before question generation, so it may
    not ask (the CoT baseline, Section 5.3, may)."""
    cot = config.ablation == "cot"
    fn = baselines.cot if cot else baselines.self_ask
    settings = baselines.Config(k=config.k, reveal_seed=config.reveal_seed,
                                temperature=config.temperature, max_tokens=config.max_tokens,
                                seed=config.seed, oracle=not cot)
    result = fn(problem, llm, settings, observer=observer)
    result.method = "sqbcp"
    result.metrics["ablation"] = config.ablation
    return result


def finish(run: Run, search: _Search, req: Request, plan: list[str], accepted: bool,
           stop: str, d_s: str, relied: list[dict[str, str]]) -> SolveResult:
    """The result: ``verified`` only when the method accepted a plan and the
    task's decider judged it valid on the true task (scope ``HIDDEN_TASK``;
    unknown is not verified). A request with no true task (a person's) is
    never verified: nothing but the person's answers grounds it."""
    from veriplan.domains.hidden.metrics import judge

    judged = judge(req.task, plan) if req.task is not None else {}
    verdict = judged.get("verdict")
    verified = accepted and verdict == Verdict.VALID.value and bool(plan)
    failure: HiddenTaskFailure | None
    if not accepted:
        failure = HiddenTaskFailure.NO_PLAN
    elif verified:
        failure = None
    elif judged.get("violated"):
        # accepted on grounded knowledge, yet violates the true task
        failure = HiddenTaskFailure.VIOLATION
    elif verdict == Verdict.UNKNOWN.value:
        failure = HiddenTaskFailure.UNKNOWN  # accepted, but no fact of the true task decides it
    elif judged:
        # accepted, and the true task says it is wrong (goal, product)
        failure = HiddenTaskFailure.WRONG
    else:
        failure = HiddenTaskFailure.NOT_JUDGED  # no true task to judge on
    t = search.tally
    hidden = req.hidden
    violations = judged.get("violations", [])
    metrics: dict[str, JSONValue] = {
        **judged, "no_plan": not plan, "ablation": "none", "accepted": accepted,
        "stop": stop, "violations": violations,
        "violated": bool(judged.get("violated")), "hypotheses": t.proposed,
        "unreadable": t.unreadable,
        "bridges": t.bridges, "bridges_established": search.established,
        "queries": t.queries, "reused_answers": t.reused,
        "oracle_calls": getattr(req.oracle, "calls", t.queries),
        "expansions": search.expansions,
        "dropped": t.dropped, "d_s": d_s, "learned": dict(search.learned),
        "substitutions": search.substitutions, "rejected": search.rejected[:5],
        "answers": search.answers, "relied_on": relied,
        "product": getattr(search.g, "product", None),
        "latent": req.task.m if req.task else None, "hidden": hidden,
        "family": req.task.family if req.task else "request",
        "reference": list(req.task.reference) if req.task else []}
    return run.result(verified=verified, plan=plan, attempts=search.expansions,
                      failure=failure, metrics=metrics, transcript=search.log,
                      solved_by="llm" if verified else None,
                      last_diagnosis="" if verified else ("; ".join(violations) or stop),
                      # a person's request has no true task: nothing grounded checks it
                      scope=Scope.HIDDEN_TASK if req.task is not None else Scope.UNCHECKED)


def facts_view(facts: Mapping[str, bool]) -> list[str]:
    return [k if v else f"not so: {k}" for k, v in facts.items()]


__all__ = ["Config", "HiddenPDDL", "NaturalLanguage", "Request", "solve", "VIOL"]
