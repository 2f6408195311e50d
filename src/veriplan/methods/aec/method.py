"""AEC (Qu, "Active Epistemic Control for Query-Efficient Verified Planning")
on the environments of :mod:`veriplan.envs`: see README.md in this folder."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veriplan.core.problems import ProblemKind
from veriplan.envs.base import EnvTask
from veriplan.methods.aec.config import Config
from veriplan.methods.aec.controller import Policy
from veriplan.methods.aec.episode import Agent
from veriplan.methods.aec.predictor import Predictor
from veriplan.methods.records import Observer
from veriplan.methods.result import SolveResult

if TYPE_CHECKING:
    from veriplan.llm.client import LLM

PROBLEM = ProblemKind.ENV


def policy_for(config: Config) -> Policy:
    """AEC's policy, or one of its ablations (``verification=false``,
    ``gating=false``)."""
    return Policy(gating="aec" if config.gating else "simulate",
                  verification=config.verification, ground_commit=config.ground_commit,
                  unchecked_commits=config.unchecked_commits, score=config.score)


def solve(problem: EnvTask, llm: LLM, config: Config = Config(), *,
          observer: Observer | None = None, predictor: Predictor | None = None
          ) -> SolveResult:
    """AEC on one :class:`~veriplan.envs.base.EnvTask`. ``verified`` means the
    environment reported the task done (:attr:`Scope.ENV_EPISODE`); each commit
    is recorded with what decided it (V valid on grounded facts, or
    :attr:`Scope.UNCHECKED`). ``predictor`` replaces the model
    ensemble with any estimator of M(w, p)."""
    return Agent("aec", problem, llm, config, policy_for(config), observer,
                 predictor=predictor).solve()


__all__ = ["Config", "PROBLEM", "policy_for", "solve"]
