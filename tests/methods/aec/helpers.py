"""Building blocks for AEC's tests: a predictor with fixed answers, a querier
over a fixed truth, hypotheses from plan dicts, and a controller over them."""

from __future__ import annotations

from tests.methods.aec import kitchen
from veriplan.envs.base import EnvTask, Fact
from veriplan.methods.aec.controller import Answer, Controller, Policy
from veriplan.methods.aec.envmodels import household_goal
from veriplan.methods.aec.hypotheses import build, read_plan
from veriplan.methods.aec.predictor import Prediction
from veriplan.methods.aec.repair import RuleBook
from veriplan.methods.aec.state import GroundedStore

FRIDGE = ("in", ("apple 1", "fridge 1"))
CABINET = ("in", ("apple 1", "cabinet 1"))
COUNTER = ("in", ("apple 1", "countertop 1"))
GOAL = "put a hot apple in table."


class Stub:
    """M(w, p) with fixed (mu, sigma) per predicate; records what it was given."""

    def __init__(self, table=None, default=(0.5, 1.0)) -> None:
        self.table = dict(table or {})
        self.default = default
        self.calls: list[tuple] = []

    def predict(self, w, key) -> Prediction:
        self.calls.append((key, tuple(w.describe())))
        mu, sigma = self.table.get(key, self.default)
        return Prediction(mu, sigma, sigma)


def three_plans(**scores):
    """The fridge, cabinet and countertop plans; the last two say the apple is
    not in the fridge (so the fridge splits H 1:2)."""
    not_fridge = [("in", ("apple 1", "fridge 1"), False)]
    return [kitchen.plan("fridge 1", score=scores.get("fridge", 0.6)),
            kitchen.plan("cabinet 1", score=scores.get("cabinet", 0.5), stated=not_fridge),
            kitchen.plan("countertop 1", score=scores.get("counter", 0.4), stated=not_fridge)]


def controller(plans, truth=None, table=None, *, policy=Policy(), max_queries=8,
               side=(), rules=None, predictor=None, tau=0.2, epsilon=0.2):
    """A controller over ``plans`` from an empty w; QUERY(p) answers from
    ``truth`` (None: unknown) and grounds ``side`` facts with it."""
    model = kitchen.model()
    book = RuleBook(rules if rules is not None else model.rules)
    w = GroundedStore(book)
    hs = build([read_plan(p, model.predicates) for p in plans], w, book, model)
    truth = dict(truth or {})
    asked: list = []

    def query(key) -> Answer:
        asked.append(key)
        v = truth.get(key)
        facts = list(side) + ([Fact(key[0], key[1], v)] if v is not None else [])
        w.ground(facts, "query", len(asked))
        return Answer(v)

    ctl = Controller(hs, w, predictor or Stub(table), query, policy, epsilon=epsilon, tau=tau,
                     max_queries=max_queries, actions=model.actions, goal=household_goal(GOAL))
    ctl.asked = asked  # type: ignore[attr-defined]
    return ctl


def task(scenario="hot_apple/fridge", env="fakekitchen", **options) -> EnvTask:
    return EnvTask(env, scenario, split="test", task_type="pick_heat_then_place",
                   options=tuple(sorted(options.items())))
