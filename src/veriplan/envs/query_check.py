"""The household query macro-actions against the simulator: at each step of
each game's walkthrough (replayed from a reset), ``per_step`` queries in a row
(each from the state the one before left) of predicates and names drawn at
random (seeded by the game id; names from the simulator's state, and one that
names nothing); every fact a query grounded, its answer included, and the
episode's grounded store are checked against the simulator's state. An answer
of None is allowed (unknown); a wrong one is not.

    veriplan env check-queries [--split eval] [--limit N] [--per-step 3]
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from veriplan.envs.base import Env

PREDICATES = ("at", "in", "open", "openable", "holds", "handempty", "hot", "cool", "clean",
              "toggled", "kind", "pickupable", "toggleable", "heatable", "coolable",
              "cleanable", "cancontain")


@dataclass
class QueryCheck:
    answered: Counter = field(default_factory=Counter)  # predicate -> answers given
    unknown: Counter = field(default_factory=Counter)  # predicate -> None answers
    steps: int = 0  # environment steps the queries spent
    contradicted: list[str] = field(default_factory=list)


def _ask(rng: random.Random, truth: set, kinds: list[str]) -> tuple[str, tuple[str, ...]]:
    things = sorted({f.args[0] for f in truth if f.pred == "in"} | {"apple 99"})
    places = sorted({f.args[1] for f in truth if f.pred == "at"} |
                    {f.args[1] for f in truth if f.pred == "in"} | {"fridge 9"})
    held = sorted(f.args[1] for f in truth if f.pred == "holds")
    pred = rng.choice(PREDICATES)
    o = rng.choice(held if held and rng.random() < 0.5 else things)
    r = rng.choice(places)
    args = {"at": ("agent", r), "in": (o, r), "open": (r,), "openable": (r,),
            "holds": ("agent", o), "handempty": ("agent",), "kind": (rng.choice([o, r]),
                                                                     rng.choice(kinds)),
            "cancontain": (r, o)}.get(pred, (o,))
    return pred, args


def check_game(env: Env, game_id: str, out: QueryCheck, per_step: int = 3) -> None:
    from veriplan.envs.household.games import load_game

    plan = load_game(game_id).plan
    rng = random.Random(f"query_check:{game_id}")
    for n in range(len(plan) + 1):
        env.max_steps = max(env.max_steps, len(plan) + 20)
        env.reset(game_id)
        for step in plan[:n]:
            env.step(env.command_for(step))  # type: ignore[attr-defined]
        for _ in range(per_step):
            truth = env.true_facts() or set()
            kinds = sorted({f.args[1] for f in truth if f.pred == "kind"})
            pred, args = _ask(rng, truth, kinds)
            q = env.query(pred, *args)
            (out.answered if q.value is not None else out.unknown)[pred] += 1
            out.steps += q.steps
            label = f"{game_id} after {n} step(s), query {pred}{args}"
            out.contradicted += [f"{label}: {f}" for f in
                                 env.contradicted(q.facts)]  # type: ignore[attr-defined]
            out.contradicted += [f"{label}, store: {f}" for f in
                                 env.contradicted(env.grounded)]  # type: ignore[attr-defined]


def query_check(split: str = "eval", limit: int | None = None, per_step: int = 3
                ) -> tuple[list[str], QueryCheck]:
    """Every game of ``split`` (the first ``limit``) checked; the ids and the tally."""
    from veriplan.envs import make_env
    from veriplan.envs.household.games import game_ids

    ids = game_ids(split)[:limit] if limit else game_ids(split)
    out = QueryCheck()
    with make_env("household") as env:
        for gid in ids:
            check_game(env, gid, out, per_step)
    return ids, out
