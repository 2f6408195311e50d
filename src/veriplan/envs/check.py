"""Replaying the gold paths (ScienceWorld) and walkthroughs (household games)
of a set of tasks: every episode must be won, and on every step the grounder
must assert nothing the simulator's state contradicts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from veriplan.envs.base import Env


@dataclass
class EpisodeCheck:
    task_id: str
    won: bool
    steps: int
    facts: int  # facts the grounder asserted over the episode
    contradicted: list[str] = field(default_factory=list)
    problem: str = ""


def replay(env: Env, task_id: str) -> EpisodeCheck:
    """One task's gold path / walkthrough with the grounder checked on each step."""
    if env.name == "scienceworld":
        path = env.gold_path(task_id)  # type: ignore[attr-defined]
        commands = None
    else:
        from veriplan.envs.household.games import load_game

        path = load_game(task_id).plan
        commands = env.command_for  # type: ignore[attr-defined]
    env.max_steps = max(env.max_steps, len(path) + 1)
    obs = env.reset(task_id)
    bad = [str(f) for f in env.contradicted(obs.facts)]  # type: ignore[attr-defined]
    asserted = len(obs.facts)
    for n, step in enumerate(path, 1):
        action = commands(step) if commands else step
        if action is None:
            return EpisodeCheck(task_id, False, n - 1, asserted, bad,
                                f"step {n} {step} has no admissible command")
        result = env.step(action)
        asserted += len(result.observation.facts)
        bad += [f"step {n}: {f}" for f in
                env.contradicted(result.observation.facts)]  # type: ignore[attr-defined]
    return EpisodeCheck(task_id, env.won, len(path), asserted, bad)


def check_all(env: Env, task_ids: list[str],
              on_episode: Callable[[EpisodeCheck], None] | None = None) -> list[EpisodeCheck]:
    out = []
    for tid in task_ids:
        try:
            ep = replay(env, tid)
        except Exception as e:  # noqa: BLE001 - one broken task must not hide the others
            ep = EpisodeCheck(tid, False, 0, 0, [], f"{type(e).__name__}: {e}")
        out.append(ep)
        if on_episode:
            on_episode(ep)
    return out
