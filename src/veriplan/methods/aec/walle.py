"""A WALL-E stand-in (``walle-standin``): not the authors' released code,
which does not run here, but its prediction-then-rule loop in AEC's harness.

WALL-E (Zhou et al., 2024) plans with an LLM world model that predicts what it
does not observe, and learns symbolic rules from the transitions where a
prediction turned out wrong; a learned rule then overrides the model's
prediction. Here:

- predict: every unresolved precondition is predicted by M(w, p) and the
  prediction is taken as a fact, both to prune and in the commitment check
  (WKM's policy: no query, grounding only by acting);
- learn: whenever the agent grounds a value (by observing or acting) that an
  earlier prediction of the same predicate got wrong, a rule "p = value" is
  learned and replaces M's answer for p from then on (confidence 1, sigma 0);
- rules are kept across the task's iterations (``iterations`` > 1: the
  failure-driven refinement of WALL-E's and AEC's Figure 3), and cleared only
  by a new task.

Its rules are per predicate and argument (a learned fact about this task's
objects), not WALL-E's general rules over object kinds: the stand-in keeps the
loop's shape, not its rule language.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from veriplan.core.problems import ProblemKind
from veriplan.envs.base import Env, EnvTask, Fact
from veriplan.methods.aec.baselines import WKM_POLICY
from veriplan.methods.aec.config import PredictorConfig
from veriplan.methods.aec.domain import Key, key_of, show
from veriplan.methods.aec.episode import Agent
from veriplan.methods.aec.predictor import Prediction, Predictor, scored
from veriplan.methods.aec.state import GroundedStore
from veriplan.methods.records import Entry, Observer
from veriplan.methods.result import SolveResult

if TYPE_CHECKING:
    from veriplan.llm.client import LLM

PROBLEM = ProblemKind.ENV


class RuledPredictor:
    """M(w, p), with the learned rules answering first."""

    def __init__(self, base: Predictor, rules: dict[Key, bool]) -> None:
        self.base, self.rules = base, rules
        self.overridden = 0

    def predict(self, w: GroundedStore, key: Key) -> Prediction:
        if key in self.rules:
            self.overridden += 1
            v = 1.0 if self.rules[key] else 0.0
            return Prediction(v, 0.0, 0.0)
        return self.base.predict(w, key)


class WalleAgent(Agent):
    """WKM's loop plus rules learned from wrong predictions (see the module)."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.learned: dict[Key, bool] = {}

    def ground(self, facts: Iterable[Fact], source: str, touched: Iterable[Key], *,
               ticked: bool = False) -> None:
        facts = list(facts)
        touched = set(touched)
        for f in facts:
            k = key_of(f)
            if k in touched:
                continue
            wrong = [p for p in self.pending.get(k, ()) if scored(p.mu, f.value) is False]
            if wrong and self.learned.get(k) != f.value:
                self.learned[k] = f.value
                self.log.append(Entry(None, "rule", show(k), str(f.value), ok=True, verdict=(
                    f"learned {show(k, f.value)}: predicted otherwise, then {source}")))
        super().ground(facts, source, touched, ticked=ticked)

    def predictor(self, env: Env) -> Predictor | None:
        base = super().predictor(env)
        return None if base is None else RuledPredictor(base, self.learned)


def walle(problem: EnvTask, llm: LLM, config: PredictorConfig = PredictorConfig(), *,
          observer: Observer | None = None, predictor: Predictor | None = None) -> SolveResult:
    result = WalleAgent("walle-standin", problem, llm, config, WKM_POLICY, observer,
                        predictor=predictor)
    return result.solve()


def _spec():
    from veriplan.methods import MethodSpec
    from veriplan.methods.aec.metrics import Metric

    return MethodSpec("walle-standin", walle, PredictorConfig, PROBLEM, metrics=Metric)


WALLE = _spec()

__all__ = ["RuledPredictor", "WALLE", "WalleAgent", "walle"]
