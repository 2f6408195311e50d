"""The baselines of Section 4.3, in the same harness, environments and
observation interface as AEC (each registered as a method):

- ``aec-direct``: a plan from the task and the current observation, executed
  without verification; a failed action or a plan that ends short of the goal
  starts a new round from the observation then (a replanning round);
- ``aec-react``: ReAct (thought and action per turn) over the environment's
  admissible commands, the first observation and the latest turns in view;
  each failed action is a replanning round;
- ``wkm``: AEC's loop where every unresolved precondition is predicted and the
  predictions are taken as facts (pruning, and the commitment check reads
  them): no grounding beyond what the agent observes by acting;
- ``query-only``: every missing precondition is grounded by query before
  committing (no predictor).

At temperature 0 (the default), Direct and ReAct take an earlier answer to an
identical prompt again without a call, as AEC's planner does, so that LLM
calls and tokens compare on the same footing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from veriplan.core.problems import ProblemKind
from veriplan.envs.base import Env, EnvTask
from veriplan.methods.aec import hypotheses as hyp
from veriplan.methods.aec.config import AgentConfig, PredictorConfig, QueryOnlyConfig
from veriplan.methods.aec.controller import Policy
from veriplan.methods.aec.episode import Agent, Outcome, admissible, failed, guard, remember
from veriplan.methods.aec.predictor import Predictor
from veriplan.methods.aec.prompting import render
from veriplan.methods.aec.state import Hypothesis
from veriplan.methods.aec.verifier import unchecked
from veriplan.methods.failures import AecFailure
from veriplan.methods.records import Event, Observer
from veriplan.methods.result import SolveResult

if TYPE_CHECKING:
    from veriplan.core.jsonvalue import JSONValue
    from veriplan.llm.client import LLM
    from veriplan.methods import MethodSpec

PROBLEM = ProblemKind.ENV
_FIELD = re.compile(r"^\W*(thought|action)\s*[:：]\s*(.*)$", re.I)


class DirectAgent(Agent):
    def _episode(self, env: Env) -> Outcome:
        cfg = self.config
        self.last_text = self.start(env).text
        feedback: list[str] = []
        while True:
            if env.steps_left <= 0:
                return self.end(False, AecFailure.STEP_BUDGET, "the step budget is spent")
            self.tally.rounds += 1
            prompt = render("direct.j2", task=env.task_description, observation=self.last_text,
                            feedback=feedback, actions_help=self.model.actions_help,
                            admissible=admissible(env))
            value, error = hyp.ask_json_once(
                self.run.llm, self.log, self.answers, "plan", prompt, hyp.ACTIONS_SCHEMA,
                name="plan", temperature=cfg.temperature, max_tokens=cfg.max_tokens,
                seed=cfg.seed + self.tally.rounds - 1, round_=self.tally.rounds)
            actions = _actions(value)
            entry = self.log[-1]
            entry.ok, entry.plan = bool(actions), list(actions)
            entry.verdict += (f"{len(actions)} action(s)" if actions else
                              f"not a plan ({error or 'no list of actions'}): counted")
            if not actions:
                self.tally.unreadable += 1
                reason = "the model gave no readable plan"
            else:
                verdict = unchecked("Direct commits its plan without verification")
                self.count_commit(verdict)
                reason, result = self.execute(Hypothesis(tuple(actions), {}), verdict,
                                              watch=False)
                if result is not None:
                    return result
            feedback = remember(feedback, [reason])
            if self.tally.replans >= cfg.max_replans:
                return self.end(False, AecFailure.REPLAN_CAP, f"{reason} (replanning cap "
                                f"{cfg.max_replans} reached)")
            self.tally.replans += 1
            self.emit(Event("replan", reason))


def _actions(value: JSONValue) -> list[str]:
    items = value.get("actions") if isinstance(value, dict) else value
    if not isinstance(items, list):
        return []
    return [" ".join(a.split()) for a in items if isinstance(a, str) and a.strip()]


def read_turn(text: str) -> dict[str, str]:
    """The first Thought and Action lines of an answer."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = _FIELD.match(line)
        if m and m.group(1).lower() not in out:
            out[m.group(1).lower()] = m.group(2).strip()
    return out


class ReactAgent(Agent):
    HISTORY = 8  # the latest turns shown in the prompt, after the first observation

    def _episode(self, env: Env) -> Outcome:
        cfg = self.config
        first = self.start(env).text
        history: list[dict[str, str]] = []
        turns = 0
        said: dict[str, tuple[str, int]] = {}  # prompt -> (answer, turn), at temperature 0
        prompt = ""
        while env.steps_left > 0 and turns < 2 * env.max_steps:
            turns += 1
            self.tally.rounds += 1
            shown = history[-self.HISTORY:]
            before, prompt = prompt, render(
                "react.j2", task=env.task_description, actions_help=self.model.actions_help,
                history=shown, first=first, omitted=len(history) > len(shown),
                admissible=admissible(env))
            earlier = said.get(prompt) if cfg.temperature == 0 else None
            if earlier is not None:  # greedy decoding: the same prompt, the same answer
                answer = hyp.reuse_text(self.log, "turn", prompt, *earlier)
            else:
                answer = hyp.ask_text(self.run.llm, self.log, "turn", prompt,
                                      temperature=cfg.temperature,
                                      max_tokens=min(cfg.max_tokens, 200),
                                      seed=cfg.seed + turns - 1)
                said[prompt] = (answer, turns)
            turn = read_turn(answer)
            action = " ".join(turn.get("action", "").split())
            entry = self.log[-1]
            if not action:
                self.tally.unreadable += 1
                entry.ok = False
                if earlier is not None and prompt == before:
                    # the previous turn's prompt and answer again, and no step taken: every
                    # later prompt would be this one, answered the same
                    entry.verdict += "no Action line again: the episode cannot go on"
                    return self.end(False, AecFailure.NOT_WON, "the model gave no command, and "
                                    "the same prompt would get the same answer (temperature 0)")
                entry.verdict = "no Action line: counted, the episode goes on"
                history.append({"thought": turn.get("thought", ""), "action": "(none)",
                                "observation": "Give one command on an 'Action:' line."})
                continue
            changed = self.touched_by([action])
            result = guard(env.step, action)
            self.trajectory.append(action)
            bad = failed(result, self.model)
            self.after_step(result, changed)
            entry.ok, entry.plan = not bad, [action]
            entry.verdict += "failed" if bad else "done"
            self.emit(Event("execute", f"{action} -> {result.observation.text[:120]}",
                            ok=not bad))
            history.append({"thought": turn.get("thought", ""), "action": action,
                            "observation": result.observation.text.strip()})
            if result.info.get("won"):
                return self.end(True, None, "won", result.info.get("score"))
            if bad:  # a failed action makes ReAct revise its plan: a replanning round
                self.tally.failed_actions += 1
                self.tally.replans = min(cfg.max_replans, self.tally.replans + 1)
            if result.done:
                break
        if env.steps_left <= 0:
            return self.end(False, AecFailure.STEP_BUDGET, "the step budget is spent")
        return self.end(False, AecFailure.NOT_WON, "the episode ended without completing the task")


def direct(problem: EnvTask, llm: LLM, config: AgentConfig = AgentConfig(), *,
           observer: Observer | None = None) -> SolveResult:
    return DirectAgent("aec-direct", problem, llm, config, Policy(verification=False),
                       observer).solve()


def react(problem: EnvTask, llm: LLM, config: AgentConfig = AgentConfig(), *,
          observer: Observer | None = None) -> SolveResult:
    return ReactAgent("aec-react", problem, llm, config, Policy(verification=False),
                      observer).solve()


WKM_POLICY = Policy(gating="simulate", verification=True, ground_commit=True,
                    beliefs_as_facts=True)
QUERY_ONLY_POLICY = Policy(gating="query", verification=True, ground_commit=True)


def wkm(problem: EnvTask, llm: LLM, config: PredictorConfig = PredictorConfig(), *,
        observer: Observer | None = None, predictor: Predictor | None = None) -> SolveResult:
    return Agent("wkm", problem, llm, config, WKM_POLICY, observer, predictor=predictor).solve()


def query_only(problem: EnvTask, llm: LLM, config: QueryOnlyConfig = QueryOnlyConfig(), *,
               observer: Observer | None = None) -> SolveResult:
    return Agent("query-only", problem, llm, config, QUERY_ONLY_POLICY, observer).solve()


def _spec(name: str, fn: Callable[..., SolveResult], config_cls: type[AgentConfig]
          ) -> MethodSpec:
    from veriplan.methods import MethodSpec
    from veriplan.methods.aec.metrics import Metric

    return MethodSpec(name, fn, config_cls, PROBLEM, metrics=Metric)  # reported in AEC's section


DIRECT = _spec("aec-direct", direct, AgentConfig)
REACT = _spec("aec-react", react, AgentConfig)
WKM = _spec("wkm", wkm, PredictorConfig)
QUERY_ONLY = _spec("query-only", query_only, QueryOnlyConfig)

__all__ = ["DIRECT", "DirectAgent", "QUERY_ONLY", "REACT", "ReactAgent", "WKM", "direct",
           "query_only", "react", "read_turn", "wkm"]

