"""One agent on one task: episodes of planning rounds (Algorithm 1), the
execution monitor of B.3, the verifier repair of B.4, and failure-driven
refinement across iterations (Figure 3). AEC, its ablations, WKM and
Query-Only differ only in their :class:`~veriplan.methods.aec.controller.Policy`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias, TypeVar, TypeVarTuple

from veriplan.core.verdict import Scope
from veriplan.envs.base import Env, EnvTask, Fact, Observation, QueryResult, StepResult
from veriplan.errors import ConfigError
from veriplan.methods.aec import hypotheses as hyp
from veriplan.methods.aec.config import AgentConfig, Config, PredictorConfig
from veriplan.methods.aec.controller import Answer, Controller, DecisionRecord, Policy
from veriplan.methods.aec.domain import EnvModel, Goal, Key, env_model, key_of, show
from veriplan.methods.aec.predictor import (
    Calibration,
    EnsemblePredictor,
    Prediction,
    Predictor,
    load_calibration,
    scored,
)
from veriplan.methods.aec.prompting import render
from veriplan.methods.aec.repair import Counterexample, Refinement, RuleBook
from veriplan.methods.aec.state import GroundedStore, Hypothesis
from veriplan.methods.aec.verifier import Verification, apply_plan, is_noop, may_change
from veriplan.methods.failures import AecFailure
from veriplan.methods.records import Entry, Event, Observer, quiet
from veriplan.methods.result import Run, SolveResult

if TYPE_CHECKING:
    from veriplan.llm.client import LLM

ADMISSIBLE_SHOWN = 60  # commands listed in a prompt (ScienceWorld has thousands)
FEEDBACK_LINES = 6  # "what went wrong before": the latest distinct lines kept
LESSONS_PER_ROUND = 3  # grounded counterexamples a round adds to them

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
# What a query's answer depends on: the grounded facts, and the steps the agent's plans took.
Stamp: TypeAlias = tuple[frozenset[Fact], int]


def remember(feedback: list[str], new: list[str]) -> list[str]:
    """The feedback lines after a round: ``new`` last, each line once (a line
    seen again moves to the end), at most FEEDBACK_LINES."""
    new = list(dict.fromkeys(new))
    return ([f for f in feedback if f not in new] + new)[-FEEDBACK_LINES:]


class EnvFailure(Exception):
    """The environment itself failed (its process died, its engine raised)."""


def guard(fn: Callable[[*Ts], T], *args: *Ts) -> T:
    """Call the environment; anything it raises other than a bad request
    (:class:`ConfigError`: an unknown task id) or a missing capability
    (NotImplementedError) is an :class:`EnvFailure`."""
    try:
        return fn(*args)
    except (ConfigError, NotImplementedError):  # a bad request; a capability it lacks
        raise
    except Exception as exc:  # the simulator's own errors, of any type
        raise EnvFailure(f"{type(exc).__name__}: {exc}") from exc


def as_task(problem: object) -> EnvTask:
    if not isinstance(problem, EnvTask):
        raise ConfigError(f"the AEC agents act in an environment: give an EnvTask, not "
                          f"{type(problem).__name__}")
    return problem


def admissible(env: Env) -> list[str]:
    """The admissible commands a prompt shows: all of them when they fit in
    ADMISSIBLE_SHOWN, else a representative subset (:func:`spread`)."""
    try:
        return spread(list(guard(env.valid_actions)), ADMISSIBLE_SHOWN)
    except NotImplementedError:
        return []


def spread(commands: list[str], cap: int) -> list[str]:
    """At most ``cap`` of ``commands``, every kind before any kind repeats.
    A list that fits is returned as it is. Otherwise the commands are grouped
    by their first word ("connect", "look", "open"), and within a group by
    their second ("look around", "look at", ...), each in the environment's
    order, and the groups take turns (round-robin, in order of first
    appearance) at every level. ScienceWorld lists its commands alphabetically,
    so its first 60 are all "connect ..."; the spread shows each kind of
    command it admits. Deterministic: the same list, the same subset."""
    if len(commands) <= cap:
        return list(commands)
    return _interleave(commands, 0)[:cap]


def _interleave(commands: list[str], depth: int) -> list[str]:
    if depth == 2 or len(commands) <= 1:
        return list(commands)
    groups: dict[str, list[str]] = {}
    for c in commands:
        words = c.split()
        groups.setdefault(words[depth] if depth < len(words) else "", []).append(c)
    if len(groups) == 1:
        return _interleave(commands, depth + 1)
    turns = [_interleave(g, depth + 1) for g in groups.values()]
    return [c for i in range(max(map(len, turns))) for t in turns if i < len(t)
            for c in (t[i],)]


def refused(text: str, model: EnvModel) -> bool:
    """The environment refused the action and nothing changed: one of the
    model's failure texts, or (the action model's optional ``failed(text)``)
    one of the environment's refusals. The environment's own store keeps its
    facts across such a step; so does AEC's w."""
    text = text.strip()
    if any(text.startswith(t) for t in model.failure_texts):
        return True
    fn = getattr(model.actions, "failed", None)
    return fn is not None and bool(fn(text))


def failed(result: StepResult, model: EnvModel, expected: Iterable[Fact] = ()) -> bool:
    """An action failed: the environment said so in one of its failure texts or
    (the action model's optional ``failed(text)``) in one of its refusals, or the
    observation contradicts an effect the action model expected."""
    text = result.observation.text.strip()
    if any(text.startswith(t) for t in model.failure_texts):
        return True
    refused = getattr(model.actions, "failed", None)
    if refused is not None and refused(text):
        return True
    seen = {key_of(f): f.value for f in result.observation.facts}
    return any(seen.get(key_of(f), f.value) != f.value for f in expected)


@dataclass
class Tally:
    """Counts over one episode."""

    rounds: int = 0
    replans: int = 0
    queries: int = 0
    query_steps: int = 0
    unanswerable: int = 0
    unasked: int = 0  # (round, predicate) left out: unsettled in the same state before
    simulations: int = 0
    predictions: int = 0
    commits: int = 0
    rejections: int = 0
    discarded: int = 0
    unreadable: int = 0
    hypotheses: int = 0
    failed_actions: int = 0
    contradictions: int = 0
    skipped: int = 0  # no-op steps of committed plans
    grounded_commits: int = 0  # V valid on the grounded facts
    unchecked_commits: int = 0  # committed with nothing grounded deciding (Scope.UNCHECKED)


@dataclass
class Outcome:
    won: bool
    failure: AecFailure | None
    reason: str
    steps: int
    tally: Tally
    trajectory: list[str] = field(default_factory=list)
    counterexamples: list[Counterexample] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    samples: list[tuple[float, bool]] = field(default_factory=list)
    decisions: list[DecisionRecord] = field(default_factory=list)
    score: float | None = None


class Agent:
    """Runs ``iterations`` episodes of one task until one is won."""

    def __init__(self, name: str, problem: EnvTask, llm: LLM, config: AgentConfig,
                 policy: Policy,
                 observer: Observer | None = None, *,
                 predictor: Predictor | None = None) -> None:
        self.name = name
        self.task = as_task(problem)
        self.run = Run(name, llm)
        self.config = config
        self.policy = policy
        self.emit = observer or quiet
        self.model = env_model(self.task.env)
        self.log: list[Entry] = []
        self.refinement = Refinement()
        self.given_predictor = predictor
        self.calibration = Calibration()
        self.tau, self.tau_source = getattr(config, "tau", 0.0), "config"
        if isinstance(config, PredictorConfig):
            self.calibration = load_calibration(config.calibration)
        if isinstance(config, Config) and config.tau_file:
            from veriplan.methods.aec.tau import load_tau

            self.tau, self.tau_source = load_tau(config.tau_file)

    # ----- the whole run ---------------------------------------------------------------------
    def solve(self) -> SolveResult:
        if self.policy.verification and self.model.actions is None:
            return self.finish([], failure=AecFailure.NO_ACTION_MODEL, diagnosis=(
                f"no symbolic action model for environment {self.task.env!r}: AEC's verifier "
                "cannot apply a plan (see veriplan.methods.aec.envmodels)"))
        outcomes: list[Outcome] = []
        try:
            env = guard(self.task.make)
        except EnvFailure as exc:
            return self.finish([], failure=AecFailure.ENV_ERROR, diagnosis=str(exc))
        try:
            if self.config.max_steps:
                env.max_steps = self.config.max_steps
            for iteration in range(self.config.iterations):
                self.emit(Event("iteration", f"iteration {iteration}"))
                outcome = self.episode(env)
                outcomes.append(outcome)
                if outcome.won or outcome.failure is AecFailure.ENV_ERROR:
                    break
                self.refine(outcome)
        finally:
            with contextlib.suppress(Exception):  # a dead simulator may not close cleanly
                env.close()
        last = outcomes[-1]
        return self.finish(outcomes, failure=last.failure, diagnosis=last.reason)

    def refine(self, outcome: Outcome) -> None:
        """Figure 3: the failed episode's counterexamples tighten the rules and
        its labelled predictions update the calibration, for the next pass."""
        self.refinement.absorb(self.rules, outcome.samples)
        self.calibration = self.calibration.updated(
            outcome.samples, name=self.calibration.name.removesuffix("+refined") + "+refined")

    # ----- one episode ---------------------------------------------------------------------
    def episode(self, env: Env) -> Outcome:
        self.env = env
        try:
            return self._episode(env)
        except EnvFailure as exc:
            return self.end(False, AecFailure.ENV_ERROR, f"the environment failed: {exc}")

    def start(self, env: Env) -> Observation:
        """A fresh episode: counts, the rule book (with what refinement carried
        over), an empty w, the reset, and w0 from the first observation."""
        cfg = self.config
        self.tally = Tally()
        self.unread_reason = ""  # why the last planning answer gave no plan
        self.trajectory: list[str] = []
        self.samples: list[tuple[float, bool]] = []
        self.pending: dict[Key, list[Prediction]] = {}
        self.decisions: list[DecisionRecord] = []
        self.answers: dict[str, tuple[str, int, str | None]] = {}  # planning prompt -> answer
        self.unsettled: dict[Key, Stamp] = {}  # unanswered query -> state after it
        self.rules = RuleBook(self.model.rules, cfg.rule_disable_after,
                              self.refinement.disabled, self.refinement.counts,
                              persistent=self.model.persistent)
        self.w = GroundedStore(self.rules, frozenset(getattr(self.model.actions, "static", ())))
        obs = guard(env.reset, self.task.task_id, cfg.seed)
        self.ground(obs.facts, "observation", ())
        return obs

    def _episode(self, env: Env) -> Outcome:
        cfg = self.config
        self.start(env)
        goal = self.model.goal_for(env.task_description)
        predictor = self.predictor(env)
        feedback: list[str] = []
        while True:
            if env.steps_left <= 0:
                return self.end(False, AecFailure.STEP_BUDGET, "the step budget is spent")
            self.tally.rounds += 1
            self.lessons: list[str] = []  # this round's grounded counterexamples
            hs = self.propose(env, feedback)
            if not hs:
                reason = "the model gave no readable plan" + (
                    f" ({self.unread_reason})" if self.unread_reason else "")
            else:
                reason, result = self.plan_and_act(hs, predictor, goal)
                if result is not None:
                    return result
            feedback = remember(feedback, [reason] + self.lessons[:LESSONS_PER_ROUND])
            if self.tally.replans >= cfg.max_replans:
                return self.end(False, AecFailure.REPLAN_CAP, f"{reason} (replanning cap "
                                f"{cfg.max_replans} reached)")
            self.tally.replans += 1
            self.emit(Event("replan", reason))

    def plan_and_act(self, hs: list[Hypothesis], predictor: Predictor | None, goal: Goal | None
                     ) -> tuple[str, Outcome | None]:
        cfg = self.config
        ctl = Controller(hs, self.w, predictor, self.query, self.policy,
                         epsilon=getattr(cfg, "epsilon", 0.0), tau=self.tau,
                         max_queries=getattr(cfg, "max_queries", 1 << 30),
                         actions=self.model.actions, goal=goal, emit=self.emit,
                         on_prediction=self.predicted, unsettled=self.asked_in_vain)
        ctl.run()
        h, verdict = ctl.commit()
        r = ctl.round
        scope = verdict.scope if r.committed else None
        self.tally.unasked += len(ctl.unasked)
        self.tally.discarded += r.discarded
        self.decisions += [d.to_dict() for d in r.decisions]
        self.tally.simulations += sum(d.kind == "simulate" for d in r.decisions)
        self.lessons = r.counterexamples()
        # the record says why every branch ended: each hypothesis that left H, and why
        ended = [f"plan #{d.hypothesis.index} ({' | '.join(d.hypothesis.actions)}) dropped by "
                 f"{d.by}: {d.why()}" for d in r.dropped]
        self.log.append(Entry(None, "verify", response="\n".join(
                                  ([f"h*: {' | '.join(h.actions)}"] if h else []) + ended),
                              ok=verdict.ok, verdict=(verdict.reason or "V accepts h*") + (
                                  " (committed, checked by nothing grounded)"
                                  if scope is Scope.UNCHECKED else ""),
                              data={"stop": r.stop, "verdict": verdict.to_dict(),
                                    "committed": r.committed,
                                    "commit_scope": scope.value if scope else None,
                                    "beliefs": ctl.beliefs.to_dict(),
                                    "dropped": [d.to_dict() for d in r.dropped][:20],
                                    "hypotheses": [x.to_dict() for x in ctl.H][:10]}))
        if ctl.exhausted or self.env.steps_left <= 0:
            return "", self.end(False, AecFailure.STEP_BUDGET, "the step budget is spent")
        if h is None or not r.committed:
            self.tally.rejections += 1
            if h is None and r.dropped:
                return "no plan was verified: every plan was discarded", None
            return f"no plan was verified: {verdict.reason}", None
        self.count_commit(verdict)
        return self.execute(h, verdict)

    def count_commit(self, verdict: Verification) -> None:
        """A commit, counted by what decided it: V valid on the grounded facts,
        or nothing grounded (:attr:`Scope.UNCHECKED`, never a grounded commit)."""
        self.tally.commits += 1
        if verdict.ok and verdict.scope is Scope.PLAN_ON_GROUNDED_FACTS:
            self.tally.grounded_commits += 1
        else:
            self.tally.unchecked_commits += 1

    # ----- grounding -------------------------------------------------------------------------
    def ground(self, facts: Iterable[Fact], source: str, touched: Iterable[Key], *,
               ticked: bool = False) -> None:
        """Every write to w goes through here: the store's update (``ticked``:
        the environment took a step it did not refuse, so the facts no frame
        rule keeps expire first), then B.4's counterexamples, then labels for
        earlier predictions (a prediction about something the actions may have
        changed since has no label: the value seen now is not the one
        predicted)."""
        facts, touched = list(facts), set(touched)
        if ticked:
            touched |= {key_of(f) for f in self.w.state.facts()
                        if not self.rules.persists(f.pred)}
        for ce in self.w.ground(facts, source, self.env.steps, touched, ticked=ticked):
            self.counterexample(ce)
        for key in touched:
            self.pending.pop(key, None)
        for f in facts:
            for pred in self.pending.pop(key_of(f), ()):
                right = scored(pred.mu, f.value)
                if right is not None:
                    self.samples.append((pred.raw, right))

    def counterexample(self, ce: Counterexample) -> None:
        status = self.rules.counterexample(ce)
        if status == "duplicate":
            return
        self.log.append(Entry(None, "counterexample", ok=False, verdict=(
            f"rule {ce.rule} entailed {show(ce.key, ce.entailed)}; grounded "
            f"{show(ce.key, ce.observed)} ({ce.source})")))
        if status == "disabled":
            self.emit(Event("rule_disabled", f"rule {ce.rule} disabled after "
                            f"{self.rules.counts[ce.rule]} counterexamples"))

    def predicted(self, key: Key, pred: Prediction) -> None:
        self.tally.predictions += 1
        self.pending.setdefault(key, []).append(pred)

    def touched_by(self, actions: Iterable[str]) -> set[Key]:
        """What the agent's own actions may have changed (forgotten before the
        observation's facts are grounded)."""
        model = self.model.actions
        if model is None:
            return set()
        return {k for a in actions for k in may_change(model, a, self.w.state)}

    def query(self, key: Key) -> Answer:
        """QUERY(p): the environment's macro-action; its steps come out of the
        episode's budget and everything it reveals is grounded (Eq. 2)."""
        env = self.env
        if env.steps_left <= 0:
            return Answer(None, True)
        try:
            q = guard(env.query, key[0], *key[1])
        except NotImplementedError:  # an environment without query macro-actions
            q = QueryResult(None, frozenset(), 0)
        self.tally.queries += 1
        self.tally.query_steps += q.steps
        self.trajectory += list(q.actions)
        values: dict[Key, set[bool]] = {}
        for f in q.facts:
            values.setdefault(key_of(f), set()).add(f.value)
        facts = [Fact(k[0], k[1], next(iter(v))) for k, v in values.items()
                 if len(v) == 1 and k != key]
        facts += self.settle([k for k, v in values.items() if len(v) > 1 and k != key],
                             q.actions)
        if len(q.actions) > 1:
            # the macro's facts are of all its observations: one that no frame rule
            # keeps may be of an earlier one, and gone by the last
            facts = [f for f in facts if self.rules.persists(f.pred)]
        if q.value is not None:
            facts.append(Fact(key[0], key[1], q.value))
        else:
            self.tally.unanswerable += 1
        self.ground(facts, "query", self.touched_by(q.actions), ticked=bool(q.actions))
        if q.value is None:
            self.unsettled[key] = self.state_stamp()
        else:
            self.unsettled.pop(key, None)
        self.log.append(Entry(None, "query", show(key), f"{q.value}", ok=q.value is not None,
                              verdict=f"{q.steps} step(s): {', '.join(q.actions) or 'none'}",
                              data={"facts": [str(f) for f in sorted(q.facts, key=str)]}))
        return Answer(q.value, env.steps_left <= 0)

    def state_stamp(self) -> Stamp:
        """What a query's answer depends on, as far as the agent can tell: the
        grounded facts and how many steps its own plans have taken (a query's
        steps only look)."""
        return (frozenset(self.w.state.facts()), self.env.steps - self.tally.query_steps)

    def asked_in_vain(self, key: Key) -> bool:
        """A query of ``key`` earlier in the episode could not settle it, and
        neither w nor the world (by an executed step) has changed since: asking
        again would get the same answer, so it is not asked."""
        stamp = self.unsettled.get(key)
        return stamp is not None and stamp == self.state_stamp()

    def settle(self, keys: list[Key], actions: Iterable[str]) -> list[Fact]:
        """A predicate the macro saw both ways changed on the way (the fridge was
        closed, then opened). The set of facts does not say which came last: the
        value the macro's last action writing it leaves (by the action model,
        one of the observations having seen it) is grounded; without one, it
        stays unknown."""
        model = self.model.actions
        if not keys or model is None:
            return []
        sim, last = self.w.state.copy(), {}
        for a in actions:
            for f in model.effects(a, sim):
                sim.set(key_of(f), f.value)
                last[key_of(f)] = f.value
        return [Fact(k[0], k[1], last[k]) for k in keys if k in last]

    # ----- hypotheses and prediction ------------------------------------------------------------
    def propose(self, env: Env, feedback: list[str]) -> list[Hypothesis]:
        cfg = self.config
        prompt = render("generate.j2", task=env.task_description, facts=self.w.describe(),
                        feedback=feedback, actions_help=self.model.actions_help,
                        admissible=admissible(env), k=cfg.hypotheses,
                        max_preconditions=getattr(cfg, "max_preconditions", 0),
                        predicates=self.model.vocabulary() or ["(any)"])
        schema = hyp.plans_schema(cfg.hypotheses, getattr(cfg, "max_preconditions", 0),
                                  max_actions=env.max_steps)
        value, error = hyp.ask_json_once(
            self.run.llm, self.log, self.answers, "hypotheses", prompt, schema, name="plans",
            temperature=cfg.temperature, max_tokens=cfg.max_tokens,
            seed=cfg.seed + self.tally.rounds - 1, round_=self.tally.rounds)
        proposals, bad = hyp.read_plans(value, cfg.hypotheses, self.model.predicates,
                                        self.model.well_formed) \
            if value is not None else ([], [error or "no JSON in the answer"])
        self.unread_reason = "; ".join(bad)[:300] if not proposals else ""
        self.tally.unreadable += len(bad)
        hs = hyp.build(proposals, self.w, self.rules, self.model, self.tally.hypotheses)
        self.tally.hypotheses += len(hs)
        entry = self.log[-1]
        entry.ok = bool(hs)
        entry.plan = list(hs[0].actions) if hs else []
        entry.verdict += f"{len(hs)} plan(s) read" + (f"; not read: {'; '.join(bad)}"
                                                      if bad else "")
        entry.data["hypotheses"] = [h.to_dict() for h in hs]
        self.emit(Event("hypotheses", entry.verdict, ok=bool(hs)))
        return hs

    def predictor(self, env: Env) -> Predictor | None:
        if self.policy.gating == "query":
            return None
        if self.given_predictor is not None:
            return self.given_predictor
        cfg = self.config
        assert isinstance(cfg, PredictorConfig)
        return EnsemblePredictor(self.run.llm, task=env.task_description,
                                 describe=self.model.describe, members=cfg.ensemble,
                                 temperature=cfg.predictor_temperature, seed=cfg.seed,
                                 calibration=self.calibration, log=self.log, emit=self.emit)

    # ----- execution monitor (B.3) ------------------------------------------------------------
    def execute(self, h: Hypothesis, verdict: Verification, *, watch: bool = True
                ) -> tuple[str, Outcome | None]:
        """Run the committed plan step by step. Replanning is triggered when an
        action fails or (``watch``) when an observation contradicts a grounded
        precondition of the rest of the plan."""
        env, model = self.env, self.model.actions
        relied: dict[int, list[tuple[Key, bool, str]]] = {}
        for i, k, v, rule in verdict.relied:
            relied.setdefault(max(i, 0), []).append((k, v, rule))
        self.emit(Event("commit", " | ".join(h.actions), plan=tuple(h.actions),
                        data={"scope": verdict.scope.value, "verdict": verdict.verdict.value}))
        against = self.relied_against(relied, 0)
        if against:
            return against, None
        for i, action in enumerate(h.actions):
            if env.steps_left <= 0:
                return "", self.end(False, AecFailure.STEP_BUDGET, "the step budget is spent")
            expected: list[Fact] = []
            if model is not None:
                if model.preconditions(action, self.w.state) is not None:
                    expected = list(model.effects(action, self.w.state))
                if is_noop(expected, self.w.state, self.rules):
                    self.tally.skipped += 1
                    continue
            changed = self.touched_by([action])
            result = guard(env.step, action)
            self.trajectory.append(action)
            self.last_text = result.observation.text
            bad = failed(result, self.model, expected)
            self.log.append(Entry(None, "act", action, result.observation.text, ok=not bad,
                                  verdict="failed" if bad else "done"))
            self.after_step(result, changed)
            self.emit(Event("execute", f"{action} -> {result.observation.text[:120]}",
                            ok=not bad))
            if result.info.get("won"):
                return "", self.end(True, None, "won", result.info.get("score"))
            if bad:
                self.tally.failed_actions += 1
                for k, v, rule in relied.get(i, ()):  # the step's only ungrounded inputs
                    self.counterexample(Counterexample(rule, k, v, not v, "failed_action",
                                                       env.steps))
                return (f"step {i + 1} ({action}) failed: "
                        f"{result.observation.text.strip()[:160]}"), None
            if result.done:
                return "", self.end(False, AecFailure.STEP_BUDGET if env.steps_left <= 0
                                    else AecFailure.DONE,
                                    "the episode ended without completing the task",
                                    result.info.get("score"))
            against = self.relied_against(relied, i + 1)
            if against:
                return f"after step {i + 1} ({action}): {against}", None
            rest = h.actions[i + 1:]
            if watch and model is not None and rest:
                app = apply_plan(rest, self.w.state, self.rules, model)
                broken = [(j, f) for j, f, from_w in app.contradicted if from_w]
                if broken:
                    j, f = broken[0]
                    self.tally.contradictions += 1
                    return (f"after step {i + 1} ({action}) the observation contradicts "
                            f"{show(key_of(f), f.value)}, which step {i + j + 2} "
                            f"({rest[j]}) needs"), None
        return "the plan ended without completing the task", None

    def after_step(self, result: StepResult, changed: set[Key]) -> None:
        """w after a real step, as the environment's own store goes: a step the
        environment refused changes nothing; any other forgets what the action
        may have changed (``changed``, from the state before it) and every
        fact no frame rule keeps, then grounds what the observation says."""
        no = refused(result.observation.text, self.model)
        self.ground(result.observation.facts, "execution", () if no else changed,
                    ticked=not no)

    def relied_against(self, relied: dict[int, list[tuple[Key, bool, str]]], start: int
                       ) -> str:
        """B.4: grounded evidence against an entailment V used for a step still
        to come is a counterexample to its rule, and the plan is replanned."""
        found = ""
        for j in sorted(relied):
            for k, v, rule in relied[j] if j >= start else ():
                g = self.w.value(k)
                if g is not None and g != v:
                    self.counterexample(Counterexample(rule, k, v, g, "monitor", self.env.steps))
                    self.tally.contradictions += 1
                    found = found or (f"{show(k, g)} was grounded, but the verifier took "
                                      f"{show(k, v)} from rule {rule} for step {j + 1}")
        return found

    # ----- results --------------------------------------------------------------------------------
    def end(self, won: bool, failure: AecFailure | None, reason: str, score: float | None = None
            ) -> Outcome:
        """The episode's outcome; ``score``: the environment's (ScienceWorld's),
        else its score after the last step, whatever ended the episode."""
        self.emit(Event("stop", reason, ok=won))
        if score is None:
            score = getattr(self.env, "score", None)
        return Outcome(won, failure, reason, self.env.steps, self.tally, list(self.trajectory),
                       list(self.rules.log), list(self.rules.disabled_now), list(self.samples),
                       list(self.decisions), score)

    def finish(self, outcomes: list[Outcome], *, failure: AecFailure | None, diagnosis: str
               ) -> SolveResult:
        return finish(self, outcomes, failure, diagnosis)


# how many decisions an episode's metrics keep (the last iteration's first ones): the
# report's gate counts are exact only for an episode that made fewer
DECISIONS_KEPT = 200


def _won_by(outcomes: list[Outcome], iterations: int) -> list[bool]:
    out, won = [], False
    for i in range(iterations):
        won = won or (i < len(outcomes) and outcomes[i].won)
        out.append(won)
    return out


def finish(agent: Agent, outcomes: list[Outcome], failure: AecFailure | None, diagnosis: str
           ) -> SolveResult:
    """The SolveResult of a run: ``verified`` is the environment's verdict that
    the task was done (a won episode), and every number the report reads."""
    cfg = agent.config
    won = bool(outcomes) and outcomes[-1].won
    last = outcomes[-1] if outcomes else None
    t = last.tally if last else Tally()
    totals = {f.name: sum(getattr(o.tally, f.name) for o in outcomes)
              for f in dataclasses.fields(Tally)}
    usage = agent.run.usage()
    metrics: dict[str, object] = {
        "won": won, "env": agent.task.env, "task_id": agent.task.task_id,
        "task_type": agent.task.task_type, "split": agent.task.split,
        "iteration": len(outcomes) - 1 if outcomes else 0, "iterations": cfg.iterations,
        "success_by_iteration": _won_by(outcomes, cfg.iterations),
        "replans": t.replans, "replan_cap": cfg.max_replans,
        # Section 4.2: a task not completed counts the cap.
        "replanning_rounds": t.replans if won else cfg.max_replans,
        "queries": t.queries, "query_steps": t.query_steps, "unanswerable": t.unanswerable,
        "unasked": t.unasked,
        "env_steps": last.steps if last else 0, "simulations": t.simulations,
        "predictions": t.predictions, "commits": t.commits, "rejections": t.rejections,
        "discarded": t.discarded, "unreadable": t.unreadable, "hypotheses": t.hypotheses,
        "failed_actions": t.failed_actions, "contradictions": t.contradictions,
        "skipped": t.skipped, "rounds": t.rounds,
        # commits by what decided them: V valid on grounded facts, or nothing grounded
        "grounded_commits": t.grounded_commits, "unchecked_commits": t.unchecked_commits,
        "rule_disables": sum(len(o.disabled) for o in outcomes),
        "disabled_rules": sorted({r for o in outcomes for r in o.disabled}),
        "counterexamples": [c.to_dict() for o in outcomes for c in o.counterexamples][:50],
        "llm_calls": usage["calls"], "tokens": usage["tokens"],
        "per_iteration": [{"won": o.won, "failure": o.failure, "replans": o.tally.replans,
                           "queries": o.tally.queries, "env_steps": o.steps}
                          for o in outcomes],
        "totals": totals, "decisions": last.decisions[:DECISIONS_KEPT] if last else [],
        "policy": dataclasses.asdict(agent.policy),
    }
    if last is not None and last.score is not None:
        metrics["score"] = last.score
    if isinstance(cfg, PredictorConfig):
        metrics["calibration"] = cfg.calibration
        metrics["calibration_samples"] = len([s for o in outcomes for s in o.samples])
    if isinstance(cfg, Config):
        metrics.update(tau=agent.tau, tau_source=agent.tau_source, epsilon=cfg.epsilon,
                       max_queries=cfg.max_queries)
    return agent.run.result(
        verified=won, plan=list(last.trajectory) if last else [],
        attempts=max(1, t.rounds), failure=None if won else (failure or AecFailure.NOT_WON),
        metrics=metrics, transcript=agent.log, last_diagnosis="" if won else diagnosis,
        solved_by="llm" if won else None,
        scope=Scope.ENV_EPISODE)


__all__ = ["DECISIONS_KEPT", "Agent", "EnvFailure", "Outcome", "Tally", "admissible", "as_task",
           "failed", "finish", "guard", "refused", "remember", "spread"]
