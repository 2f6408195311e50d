"""Collecting B.2's calibration data on training games.

For one episode: the model's hypotheses give U (from w0); each p in U is
grounded by the environment's query macro-action while the step budget lasts,
and each p that gets a label is predicted by the ensemble from w0's facts
alone (kept as they were before anything was queried, so no answer leaks into
a prediction). A p that gets no label is not predicted: its prediction could
not be scored (on the first household training games half of U went
unlabelled, so this halves the calls and changes no sample). Each sample is
the raw uncertainty u and whether the discretized prediction was right; a
:class:`~veriplan.methods.aec.predictor.Calibration` is fitted on all of them.
"""

from __future__ import annotations

import contextlib
import copy
from typing import TYPE_CHECKING, TypedDict

from veriplan.envs.base import EnvTask
from veriplan.methods.aec.config import PredictorConfig
from veriplan.methods.aec.controller import Controller, Policy
from veriplan.methods.aec.domain import show
from veriplan.methods.aec.episode import Agent, EnvFailure, guard
from veriplan.methods.aec.predictor import Calibration, EnsemblePredictor, scored

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.llm.client import LLM


class Sample(TypedDict):
    """One labelled prediction, as ``collect`` makes it and the samples file keeps it."""

    p: str  # the precondition, shown
    mu: float
    raw: float  # u, the uncalibrated uncertainty
    truth: bool  # its value at w0, as grounded
    right: bool | None  # None: the votes had no majority


def collect(problem: EnvTask, llm: LLM, config: PredictorConfig = PredictorConfig()
            ) -> list[Sample]:
    """Labelled predictions of one training episode (an environment failure
    ends it with what was collected)."""
    agent = Agent("aec-calibrate", problem, llm, config, Policy(gating="query"))
    env = guard(agent.task.make)
    out: list[Sample] = []
    try:
        agent.env = env
        agent.start(env)
        agent.tally.rounds = 1  # the first planning round's seed, as in an episode
        hs = agent.propose(env, [])
        keys = list(Controller(hs, agent.w, None, agent.query, Policy(gating="query"),
                               epsilon=0.0, tau=0.0, max_queries=0, actions=None,
                               goal=None).unresolved())
        predictor = EnsemblePredictor(agent.run.llm, task=env.task_description,
                                      describe=agent.model.describe, members=config.ensemble,
                                      temperature=config.predictor_temperature,
                                      seed=config.seed, log=agent.log)
        w0 = copy.deepcopy(agent.w)  # every prediction is made from w0, as it was here
        changed: set = set()  # what the queries' actions so far may have changed since w0
        for k in keys:
            # The label is p's value at w0, where it was predicted: not a value an
            # earlier query's actions (or this one's) may have changed on the way
            # (an `in` query opens the receptacle it looks into).
            if k in changed:
                continue
            value = agent.w.value(k)
            if value is None and env.steps_left > 0:
                before = len(agent.trajectory)
                value = agent.query(k).value
                changed |= agent.touched_by(agent.trajectory[before:])
                if k in changed:
                    continue
            if value is None:
                continue
            p = predictor.predict(w0, k)
            out.append({"p": show(k), "mu": round(p.mu, 4), "raw": round(p.raw, 4),
                        "truth": value, "right": scored(p.mu, value)})
    except EnvFailure:
        pass
    finally:
        with contextlib.suppress(Exception):
            env.close()
    return out


def fit(samples: list[Sample], name: str, **meta: JSONValue) -> Calibration:
    """Fitted on the samples with a majority (read from ``mu``, so samples
    stored before ``right`` could be None are judged alike); the rest are
    counted in the meta as ``no_majority``."""
    judged = [(float(s["raw"]), scored(float(s["mu"]), bool(s["truth"]))) for s in samples]
    kept = [(u, right) for u, right in judged if right is not None]
    return Calibration.fit(kept, name=name, predictions=len(samples),
                           no_majority=len(samples) - len(kept), **meta)


__all__ = ["Sample", "collect", "fit"]
