"""AEC's own grounded store w against the simulator, on every step of the gold
paths (ScienceWorld) and walkthroughs (household games): what
``veriplan env check --models`` does for the environment's store
(``env.grounded``), done for the store the agent plans and verifies with.

The store is fed by the agent's own code (:meth:`Agent.start` for the first
observation, :meth:`Agent.after_step` for every step: what the action may have
changed is forgotten, facts no frame rule keeps expire, a step the
environment refused changes nothing), so what is checked is what an episode
would hold. On every step, every fact of w and every fact the entailment rules
derive from it is checked against the simulator's state (for what it exposes:
``true_facts``; see each environment's ``contradicted``).

``veriplan aec check-store`` runs it over a set of tasks.
"""

from __future__ import annotations

import dataclasses
import functools
import multiprocessing
import queue
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.queues import Queue

from veriplan.envs.base import Env, EnvTask
from veriplan.errors import ConfigError, EnvironmentDied


@dataclass
class StoreCheck:
    """One replayed episode: ``facts`` (w's facts) and ``derived`` (what the
    rules entail from them) summed over the checks (at the start and after
    every step); ``doors``: how many of those were door facts checked against
    the engine's door states (0 without them); ``contradicted``: "after step
    N ACTION: FACT" for each one the simulator's state contradicts;
    ``problem``: why the replay stopped."""

    task_id: str
    won: bool = False
    steps: int = 0
    facts: int = 0
    derived: int = 0
    doors: int = 0
    contradicted: list[str] = field(default_factory=list)
    problem: str = ""


def _path(env: Env, task_id: str) -> tuple[list[str], Callable[[str], str | None]]:
    """The steps to replay and how each becomes a command, once ``env`` was reset
    to ``task_id``: ScienceWorld's gold path is the one of the world that reset
    loaded (no second load: another load may draw another world)."""
    if env.name == "scienceworld":
        return (list(env.gold_path(task_id, loaded=True)),  # type: ignore[attr-defined]
                lambda step: step)
    from veriplan.envs.household.games import load_game

    return list(load_game(task_id).plan), env.command_for  # type: ignore[attr-defined]


def replay_store(env: Env, task_id: str, *, frame_rules: bool = True,
                 doors: bool = True) -> StoreCheck:
    """Replay one task's gold path / walkthrough with an AEC agent's w, checked
    against the simulator before the first step and after every step.
    ``frame_rules=False`` is the control: w keeps every fact until the agent's
    own action may change it (AEC's store before issue 30). ``doors``: the
    simulator's door states are part of the truth where it has them apart from
    ``true_facts`` (ScienceWorld's ``true_doors``: its object tree has no
    doors); False checks the object tree only (every figure before issue 33)."""
    from veriplan.envs.rules import derive, rules_for
    from veriplan.llm import LLM, ScriptedBackend
    from veriplan.methods.aec.config import AgentConfig
    from veriplan.methods.aec.controller import Policy
    from veriplan.methods.aec.episode import Agent, guard

    out = StoreCheck(task_id)
    agent = Agent("aec-store-check", EnvTask(env.name, task_id), LLM(ScriptedBackend()),
                  AgentConfig(), Policy())
    if not frame_rules:
        agent.model = dataclasses.replace(agent.model, persistent=None)
    agent.env = env
    agent.start(env)
    path, command = _path(env, task_id)
    env.max_steps = max(env.max_steps, len(path) + 1)
    rules = rules_for(env.name, agent.rules.disabled)

    def check(label: str) -> None:
        truth = env.true_facts()
        door_keys: set[tuple[str, ...]] = set()
        if doors and hasattr(env, "true_doors"):
            engine_doors = env.true_doors()
            truth |= engine_doors
            door_keys = {f.args for f in engine_doors}
        w = set(agent.w.facts())
        derived = set(derive(w, rules))
        out.facts += len(w)
        out.derived += len(derived)
        out.doors += sum(f.pred == "open" and f.args in door_keys for f in w | derived)
        out.contradicted += [f"{label}: {f}" for f in
                             env.contradicted(w | derived, truth)]  # type: ignore[attr-defined]

    check("at the start")
    for n, step in enumerate(path, 1):
        action = command(step)
        if action is None:
            out.problem = f"step {n} {step} has no admissible command"
            break
        changed = agent.touched_by([action])
        result = guard(env.step, action)
        agent.after_step(result, changed)
        out.steps = n
        check(f"after step {n} {action}")
    out.won = env.won
    return out


def check_stores(env: Env, task_ids: list[str],
                 on_episode: Callable[[StoreCheck], None] | None = None, *,
                 frame_rules: bool = True, doors: bool = True) -> list[StoreCheck]:
    """:func:`replay_store` over ``task_ids``; an episode that raises is
    reported with its error and the others go on."""
    out = []
    for tid in task_ids:
        try:
            ep = replay_store(env, tid, frame_rules=frame_rules, doors=doors)
        except Exception as e:  # noqa: BLE001 - one broken task must not hide the others
            ep = StoreCheck(tid, problem=f"{type(e).__name__}: {e}")
        out.append(ep)
        if on_episode is not None:
            on_episode(ep)
    return out


def _run(make: Callable[[], Env], jobs: list[tuple[int, str]], frame_rules: bool,
         report: Callable[[int, StoreCheck], None], env: Env | None = None, *,
         doors: bool = True) -> None:
    """:func:`replay_store` over ``jobs`` ((index, task id)) on ``env`` (else one
    made by ``make``), on a new one after a simulator died (the tasks after it
    would all fail on the dead one); if no environment can be made, each task
    left is reported with the reason."""
    try:
        for n, (i, tid) in enumerate(jobs):
            if env is None:
                try:
                    env = make()
                except Exception as e:  # noqa: BLE001 - reported per task, as check_stores does
                    for j, t in jobs[n:]:
                        report(j, StoreCheck(t, problem=f"the environment could not start: "
                                                        f"{type(e).__name__}: {e}"))
                    return
            (ep,) = check_stores(env, [tid], frame_rules=frame_rules, doors=doors)
            report(i, ep)
            if ep.problem.startswith(f"{EnvironmentDied.__name__}:"):
                env.close()
                env = None
    finally:
        if env is not None:
            env.close()


def _worker(make: Callable[[], Env], jobs: list[tuple[int, str]], frame_rules: bool,
            results: Queue, doors: bool = True) -> None:
    """One process of :func:`check_stores_in`: each episode goes back as
    (index, StoreCheck), then (-1, None) at the end."""
    _run(make, jobs, frame_rules, lambda i, ep: results.put((i, ep)), doors=doors)
    results.put((-1, None))


def check_stores_in(env: str | Callable[[], Env], task_ids: list[str],
                    on_episode: Callable[[StoreCheck], None] | None = None, *,
                    frame_rules: bool = True, workers: int = 1,
                    doors: bool = True) -> list[StoreCheck]:
    """:func:`check_stores` on a new environment (``env``: its registered name,
    or a function that makes one, which ``workers`` > 1 need picklable); with
    ``workers`` > 1, that many processes, each with its own simulator (for
    ScienceWorld, its own Java engine), task i going to process i mod
    ``workers``. What each episode checks is the same; ``on_episode`` sees the
    episodes as they end, and the list is in the order of ``task_ids``. A
    process that stops before it reported all its tasks leaves each of them
    with the reason."""
    from veriplan.envs import make_env

    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {workers}")
    make = functools.partial(make_env, env) if isinstance(env, str) else env
    workers = min(workers, len(task_ids)) or 1
    if workers == 1:
        out: list[StoreCheck] = []

        def keep(_: int, ep: StoreCheck) -> None:
            out.append(ep)
            if on_episode is not None:
                on_episode(ep)

        _run(make, list(enumerate(task_ids)), frame_rules, keep, make(), doors=doors)
        return out
    ctx = multiprocessing.get_context("spawn")
    results: Queue = ctx.Queue()
    jobs = [[(i, t) for i, t in enumerate(task_ids) if i % workers == w] for w in range(workers)]
    procs = [ctx.Process(target=_worker, args=(make, j, frame_rules, results, doors),
                         daemon=True)
             for j in jobs]
    for p in procs:
        p.start()
    done: dict[int, StoreCheck] = {}
    ended = 0
    try:
        while ended < workers:
            try:
                i, ep = results.get(timeout=1)
            except queue.Empty:
                if all(p.exitcode is not None for p in procs):
                    break  # a process died without its end mark
                continue
            if ep is None:
                ended += 1
                continue
            done[i] = ep
            if on_episode is not None:
                on_episode(ep)
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.exitcode is None:
                p.terminate()
    for w, (p, j) in enumerate(zip(procs, jobs, strict=True)):
        for i, tid in j:
            if i not in done:
                done[i] = StoreCheck(tid, problem=f"worker process {w + 1} stopped (exit "
                                                  f"status {p.exitcode}) before this task")
                if on_episode is not None:
                    on_episode(done[i])
    return [done[i] for i in range(len(task_ids))]


__all__ = ["StoreCheck", "check_stores", "check_stores_in", "replay_store"]
