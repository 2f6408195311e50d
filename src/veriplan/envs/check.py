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


def _gold(env: Env, task_id: str) -> tuple[list[str], Callable[[Env, int], str | None]]:
    """The gold path (ScienceWorld) or Fast Downward's walkthrough (household,
    PDDL steps played as the commands of the state they are played in), once
    ``env`` was reset to ``task_id``: ScienceWorld's is the path of the world that
    reset loaded (another load may draw another world)."""
    if env.name == "scienceworld":
        path = env.gold_path(task_id, loaded=True)  # type: ignore[attr-defined]
        return path, lambda env, n: path[n - 1] if n <= len(path) else None
    from veriplan.envs.household.games import load_game

    plan = load_game(task_id).plan
    return plan, lambda env, n: env.command_for(plan[n - 1]) if n <= len(plan) else None  # type: ignore[attr-defined]


def replay(env: Env, task_id: str) -> EpisodeCheck:
    """One task's gold path / walkthrough with the grounder checked on each step."""
    obs = env.reset(task_id)
    if env.name == "scienceworld":  # the path of the world this reset loaded
        path = env.gold_path(task_id, loaded=True)  # type: ignore[attr-defined]
        commands = None
    else:
        from veriplan.envs.household.games import load_game

        path = load_game(task_id).plan
        commands = env.command_for  # type: ignore[attr-defined]
    env.max_steps = max(env.max_steps, len(path) + 1)
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


@dataclass
class ModelCheck:
    """The action models and rules checked along one replayed episode: each
    list holds what the simulator contradicted ("step N action: fact [by rule]")."""

    task_id: str
    won: bool
    steps: int
    store: list[str] = field(default_factory=list)  # env.grounded vs the simulator
    rules: list[str] = field(default_factory=list)  # facts the rules derived from it
    effects: list[str] = field(default_factory=list)  # apply(grounded, action) after the step
    preconditions: list[str] = field(default_factory=list)  # needs of each step
    checked: dict[str, int] = field(default_factory=dict)  # facts checked, by kind

    @property
    def ok(self) -> bool:
        return not (self.store or self.rules or self.effects or self.preconditions)


def replay_models(env: Env, task_id: str, disabled: tuple[str, ...] = (),
                  policy: Callable[[Env, int], str | None] | None = None,
                  steps: int | None = None) -> ModelCheck:
    """Replay a gold path / walkthrough (or the actions ``policy(env, n)``
    picks, for ``steps`` steps) and check, on every step, that the episode's
    grounded store (``env.grounded``), every fact the entailment rules derive
    from it, the symbolic effects of the step applied to it
    (:func:`~veriplan.envs.actions.apply`; only when the step is admissible, as
    effects assume success) and the preconditions of an admissible step hold in
    the simulator's state (for what it exposes, see ``true_facts``); household
    steps the game refuses must miss a precondition (they are complete there)."""
    from veriplan.envs.actions import ACTIONS, apply, effects, preconditions
    from veriplan.envs.rules import derive, rules_for

    gold = policy is None
    env.reset(task_id)
    if policy is None:
        path, policy = _gold(env, task_id)
        steps = len(path)
    rules = rules_for(env.name, disabled)
    env.max_steps = max(env.max_steps, (steps or 0) + 1)
    out = ModelCheck(task_id, False, 0)
    counts = dict.fromkeys(("store", "rules", "effects", "preconditions"), 0)

    truth: set = set()

    def bad(facts, kind: str, label: str, names: dict | None = None) -> list[str]:
        counts[kind] += len(facts)
        return [f"{label}: {f}" + (f" [{names[f]}]" if names else "")
                for f in env.contradicted(facts, truth)]  # type: ignore[attr-defined]

    for n in range(1, (steps or 0) + 1):
        action = policy(env, n)
        if action is None:
            break
        w = env.grounded
        truth = env.true_facts() or set()
        out.store += bad(w, "store", f"before step {n}")
        derived = derive(w, rules)
        out.rules += bad(set(derived), "rules", f"before step {n}", derived)
        admissible = gold or action in env.valid_actions()
        needs = preconditions(env.name, action, w)
        if needs is not None and admissible:  # what an admissible action needs holds
            out.preconditions += bad(set(needs), "preconditions", f"step {n} {action}")
        elif needs is not None and env.name == "household":
            # household preconditions are complete: an action the game refuses
            # must miss one of them
            counts["preconditions"] += len(needs)
            if not env.contradicted(set(needs), truth):  # type: ignore[attr-defined]
                out.preconditions.append(f"step {n} {action}: refused, yet all of "
                                         f"{[str(f) for f in needs]} hold")
        expected = apply(env.name, w, [action], disabled=disabled)
        add, _ = effects(env.name, action, w)
        obs = env.step(action).observation
        truth = env.true_facts() or set()
        if env.name == "scienceworld" and not gold and add and \
                not ACTIONS["scienceworld"].confirmed(action, add, obs.facts):
            # a ScienceWorld action may fail whatever valid_actions() says: without
            # the observation's word that it succeeded, only what persists is checked
            expected = expected - add
        if admissible:
            out.effects += bad(expected, "effects", f"after step {n} {action}")
        out.steps = n
    out.store += bad(env.grounded, "store", "at the end")  # truth: after the last step
    out.won, out.checked = env.won, counts
    return out


def random_walk(seed: str) -> Callable[[Env, int], str | None]:
    """A policy for :func:`replay_models`: admissible actions at random (more
    often not "go to"), and one in eight times an action the game may refuse."""
    import random

    rng = random.Random(seed)

    def policy(env: Env, n: int) -> str | None:
        acts = sorted(a for a in env.valid_actions() if a != "help")  # ScienceWorld's vary
        if rng.random() < 0.125 and acts:
            words = rng.choice(acts).split()
            other = rng.choice(acts).split()
            return " ".join(words[:-2] + other[-2:])  # the last name of another action
        busy = [a for a in acts if not a.startswith(("go to ", "connect ", "disconnect "))]
        return rng.choice(busy if busy and rng.random() < 0.6 else acts) if acts else None

    return policy


def select_ids(env: str, split: str | None = None, per_task: int | None = None,
               limit: int | None = None) -> list[str]:
    """The task ids a check runs: a split (household: eval or train; ScienceWorld:
    unseen, seen or train), the first ``per_task`` variations of each ScienceWorld
    task, the first ``limit``."""
    if env == "household":
        from veriplan.envs.household.games import game_ids

        ids = list(game_ids(split or "eval"))
    else:
        from veriplan.envs.scienceworld import split_ids

        ids = list(split_ids(split or "unseen"))
    if per_task:
        kept: dict[str, int] = {}
        picked = []
        for tid in ids:
            task = tid.rsplit(":", 1)[0]
            if kept.get(task, 0) < per_task:
                kept[task] = kept.get(task, 0) + 1
                picked.append(tid)
        ids = picked
    return ids[:limit] if limit else ids

