"""``veriplan env play|check``: play an environment in the terminal; replay the
gold paths and walkthroughs of whole task sets."""

from __future__ import annotations

import argparse
import sys

from veriplan.cli.core import EXIT_FAIL, EXIT_OK
from veriplan.errors import ConfigError


def add_parsers(sub) -> None:
    e = sub.add_parser("env", help="interactive environments (ScienceWorld, household games)")
    esub = e.add_subparsers(dest="env_command", required=True)
    p = esub.add_parser("play", help="play in the terminal (':actions', ':facts', "
                                     "':query PRED ARG..', ':quit')")
    p.add_argument("env", choices=["scienceworld", "household"])
    p.add_argument("--task", help="scienceworld: TASK:VARIATION (e.g. boil:0)")
    p.add_argument("--game", help="household: SPLIT/TYPE/N (e.g. eval/pick_and_place/0) "
                                  "or a game file")
    p.add_argument("--max-steps", type=int, help="step budget (default: the environment's)")
    c = esub.add_parser("check", help="replay every gold path / walkthrough of a set; all "
                                      "must be won, and the grounder must never be "
                                      "contradicted")
    c.add_argument("--env", choices=["scienceworld", "household", "all"], default="all")
    c.add_argument("--split", help="household: eval (default) or train; scienceworld: "
                                   "unseen (default), seen or train")
    c.add_argument("--limit", type=int, help="first N tasks of the set")
    c.add_argument("--per-task", type=int, help="scienceworld: the first N variations of each "
                                                "task of the split")
    c.add_argument("--models", action="store_true",
                   help="also check the rules, the action models and the grounded store "
                        "against the simulator on every step")
    c.add_argument("--walk", type=int, metavar="STEPS",
                   help="with --models: a random walk of STEPS actions seeded by the task id "
                        "(admissible ones, one in eight a command the game refuses) instead "
                        "of the gold path")
    q = esub.add_parser("check-queries", help="household: random queries at every "
                                              "walkthrough step checked against the simulator "
                                              "(answers may be unknown, never wrong)")
    q.add_argument("--split", default="eval", help="eval (default) or train")
    q.add_argument("--limit", type=int, help="first N games")
    q.add_argument("--per-step", type=int, default=3, help="queries at each walkthrough step")


def _play(args: argparse.Namespace) -> int:
    from veriplan.envs import make_env
    from veriplan.errors import ConfigError

    task = args.task if args.env == "scienceworld" else args.game
    if not task:
        raise ConfigError(f"give the {'--task' if args.env == 'scienceworld' else '--game'} "
                          "to play")
    options = {"max_steps": args.max_steps} if args.max_steps else {}
    with make_env(args.env, **options) as env:
        obs = env.reset(task)
        print(f"Task: {env.task_description}\n\n{obs.text}")
        for line in sys.stdin:
            cmd = line.strip()
            if not cmd:
                continue
            if cmd == ":quit":
                break
            if cmd == ":actions":
                print("\n".join(env.valid_actions()))
                continue
            if cmd == ":facts":
                print("\n".join(sorted(map(str, obs.facts))) or "(nothing grounded)")
                continue
            if cmd.startswith(":query "):
                words = cmd.split()[1:]
                q = env.query(words[0], *(" ".join(words[1:]).split(",")))
                print(f"value {q.value} after {q.steps} step(s) {list(q.actions)}; facts: "
                      f"{sorted(map(str, q.facts))}")
                continue
            obs, reward, done, info = env.step(cmd)
            print(obs.text)
            if done:
                print(f"[done: {'won' if info.get('won') else 'not won'} after "
                      f"{info.get('steps')} step(s)]")
                break
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from veriplan.envs import make_env
    from veriplan.envs.check import check_all, select_ids

    if args.walk and not args.models:
        raise ConfigError("--walk goes with --models")
    ok = True
    for name in (["household", "scienceworld"] if args.env == "all" else [args.env]):
        ids = select_ids(name, args.split, args.per_task, args.limit)
        with make_env(name) as env:
            if args.models:
                ok &= _check_models(env, name, ids, args.walk)
                continue

            def show(ep, name: str = name) -> None:
                flag = "won" if ep.won else "NOT WON"
                extra = f"; {ep.problem}" if ep.problem else ""
                bad = f"; contradicted: {ep.contradicted[:3]}" if ep.contradicted else ""
                print(f"{name} {ep.task_id}: {flag} in {ep.steps} steps, {ep.facts} facts "
                      f"grounded{bad}{extra}")

            results = check_all(env, ids, show)
        won = sum(r.won for r in results)
        contradicted = sum(len(r.contradicted) for r in results)
        facts = sum(r.facts for r in results)
        print(f"== {name}: {won}/{len(results)} won; grounder: {facts} facts asserted, "
              f"{contradicted} contradicted by the simulator")
        ok &= won == len(results) and contradicted == 0
    return EXIT_OK if ok else EXIT_FAIL


def _check_models(env, name: str, ids: list[str], walk: int | None) -> bool:
    """The grounded store, the rules' derivations, the state after each step's
    effects and each step's preconditions, against the simulator."""
    from veriplan.envs.check import random_walk, replay_models

    total: dict[str, int] = {}
    bad = won = 0
    for tid in ids:
        r = replay_models(env, tid, policy=random_walk(tid) if walk else None, steps=walk)
        won += r.won
        for k, n in r.checked.items():
            total[k] = total.get(k, 0) + n
        problems = r.store + r.rules + r.effects + r.preconditions
        bad += len(problems)
        print(f"{name} {tid}: {'won' if r.won else 'not won'} in {r.steps} steps; "
              f"checked {r.checked}" + (f"; contradicted: {problems[:3]}" if problems else ""),
              flush=True)
    done = f"{len(ids)} random walks of {walk} steps" if walk else f"{won}/{len(ids)} won"
    print(f"== {name}: {done}; facts checked {total}; {bad} contradicted by the simulator")
    return bad == 0 and (bool(walk) or won == len(ids))


def _check_queries(args: argparse.Namespace) -> int:
    from veriplan.envs.query_check import PREDICATES, query_check

    ids, out = query_check(args.split, args.limit, args.per_step)
    total_a, total_u = sum(out.answered.values()), sum(out.unknown.values())
    print(f"{len(ids)} games, {total_a + total_u} queries ({out.steps} steps): "
          f"{total_a} answered, {total_u} unknown, {len(out.contradicted)} contradicted")
    for p in PREDICATES:
        print(f"  {p}: {out.answered[p]} answered, {out.unknown[p]} unknown")
    for line in out.contradicted[:20]:
        print("  CONTRADICTED " + line)
    return EXIT_FAIL if out.contradicted else EXIT_OK


def _env(args: argparse.Namespace) -> int:
    run = {"play": _play, "check": _check, "check-queries": _check_queries}
    return run[args.env_command](args)


COMMANDS = {"env": _env}
