"""The one interface every environment implements."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from veriplan.envs.registry import make_env
from veriplan.errors import ConfigError, EnvironmentDied

__all__ = ["BudgetExhausted", "Env", "EnvTask", "EnvironmentDied", "Fact", "Observation",
           "QueryResult", "StepResult", "UnknownTaskError"]


class UnknownTaskError(ConfigError):
    """A task or game id the environment does not have (the message names the
    id and how to list the valid ones)."""


@dataclass(frozen=True)
class Fact:
    """A grounded fact: ``pred(args) = value`` (value False: known not to hold)."""

    pred: str
    args: tuple[str, ...]
    value: bool = True

    def __str__(self) -> str:
        text = f"({self.pred} {' '.join(self.args)})".replace(" )", ")")
        return text if self.value else f"(not {text})"


@dataclass(frozen=True)
class Observation:
    text: str
    facts: frozenset[Fact] = frozenset()  # what the grounder could assert from the text


@dataclass(frozen=True)
class StepResult:
    observation: Observation
    reward: float
    done: bool
    info: dict[str, Any] = field(default_factory=dict)

    def __iter__(self):  # obs, reward, done, info = env.step(...)
        return iter((self.observation, self.reward, self.done, self.info))


@dataclass(frozen=True)
class QueryResult:
    """A query macro-action's answer: the predicate's value (None: still
    unknown after the macro), the facts grounded on the way, and the
    environment steps it spent."""

    value: bool | None
    facts: frozenset[Fact]
    steps: int
    actions: tuple[str, ...] = ()


class BudgetExhausted(Exception):
    pass


class Env:
    """``reset(task_id, seed)``, ``step(action)``, ``valid_actions()``,
    ``task_description``, a step budget (``max_steps``; the episode is done when it
    is spent), and ``query(pred, *args)``. Subclasses implement ``_reset``,
    ``_step``, ``valid_actions``, ``ground`` and ``query``.

    ``grounded`` is the episode's grounded store so far: every fact the
    observations (and query answers) grounded, kept current after each step
    (:meth:`_remember`; in an environment with an action model,
    :func:`veriplan.envs.actions.advance` drops the facts an action may have
    changed unless the observation shows what it did). A simulator process that
    dies raises :class:`~veriplan.errors.EnvironmentDied`; an unknown task id is
    an :class:`UnknownTaskError`."""

    name = "env"

    def __init__(self, max_steps: int = 50) -> None:
        self.max_steps = max_steps
        self.steps = 0
        self.task_id: str | None = None
        self.task_description = ""
        self.won = False
        self.grounded: frozenset[Fact] = frozenset()

    @property
    def steps_left(self) -> int:
        return self.max_steps - self.steps

    def reset(self, task_id: str, seed: int = 0) -> Observation:
        self.steps, self.won, self.task_id = 0, False, None
        text = self._reset(task_id, seed)
        self.task_id = task_id
        obs = Observation(text, frozenset(self.ground(text)))
        self.grounded = obs.facts
        return obs

    def step(self, action: str) -> StepResult:
        if self.task_id is None:
            raise RuntimeError("reset() the environment before step()")
        if self.steps >= self.max_steps:
            return StepResult(Observation("The step budget is spent."), 0.0, True,
                              {"budget_exhausted": True, "won": self.won})
        self.steps += 1
        text, reward, done, info = self._step(action)
        self.won = self.won or bool(info.get("won"))
        done = done or self.steps >= self.max_steps
        info = {**info, "steps": self.steps, "won": self.won}
        obs = Observation(text, frozenset(self.ground(text, action)))
        self._remember(action, obs)
        return StepResult(obs, reward, done, info)

    def _remember(self, action: str, obs: Observation) -> None:
        """Keep ``grounded`` current after a step: here every fact grounded so
        far stays; an environment with an action model drops what the action
        may have changed (:class:`veriplan.envs.actions.Modelled`)."""
        self.grounded = self.grounded | obs.facts

    # ----- for subclasses ---------------------------------------------------------------
    def _reset(self, task_id: str, seed: int) -> str:
        raise NotImplementedError

    def _step(self, action: str) -> tuple[str, float, bool, dict]:
        raise NotImplementedError

    def valid_actions(self) -> list[str]:
        raise NotImplementedError

    def ground(self, text: str, action: str | None = None) -> set[Fact]:
        raise NotImplementedError

    def query(self, pred: str, *args: str) -> QueryResult:
        raise NotImplementedError

    def true_facts(self) -> set[Fact] | None:
        """The simulator's own state as facts of the grounder's vocabulary, for
        checking the grounder (None where the simulator does not expose it)."""
        return None

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class EnvTask:
    """What an agent method plans for: one episode of an environment (the
    method makes its own environment with :func:`veriplan.envs.make_env`, so
    each episode owns its simulator process). ``split`` and ``task_type``
    describe the task for reports (e.g. "eval", "pick_heat_then_place")."""

    env: str
    task_id: str
    split: str = ""
    task_type: str = ""
    options: tuple[tuple[str, Any], ...] = ()

    def make(self) -> Env:
        return make_env(self.env, **dict(self.options))
