"""``veriplan env play|check``: play an environment in the terminal; replay the
gold paths and walkthroughs of whole task sets."""

from __future__ import annotations

import argparse
import sys

from veriplan.cli.core import EXIT_FAIL, EXIT_OK
from veriplan.cli.jsondoc import emit
from veriplan.core.verdict import Scope
from veriplan.errors import ConfigError


def add_set_options(p: argparse.ArgumentParser) -> None:
    """Which task sets, and which of their tasks, a replay covers (``env check``,
    ``aec check-store``; read with :func:`veriplan.envs.check.select_ids`)."""
    p.add_argument("--env", choices=["scienceworld", "household", "all"], default="all")
    p.add_argument("--split", help="household: eval (default) or train; scienceworld: "
                                   "unseen (default), seen or train")
    p.add_argument("--limit", type=int, help="first N tasks of the set")
    p.add_argument("--per-task", type=int, help="scienceworld: the first N variations of each "
                                                "task of the split")


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
    p.add_argument("--json", action="store_true",
                   help="print the episode (each input, its output, the outcome) as JSON at "
                        "the end; the game goes to stderr")
    c = esub.add_parser("check", help="replay every gold path / walkthrough of a set; all "
                                      "must be won, and the grounder must never be "
                                      "contradicted")
    add_set_options(c)
    c.add_argument("--models", action="store_true",
                   help="also check the rules, the action models and the grounded store "
                        "against the simulator on every step")
    c.add_argument("--walk", type=int, metavar="STEPS",
                   help="with --models: a random walk of STEPS actions seeded by the task id "
                        "(admissible ones, one in eight a command the game refuses) instead "
                        "of the gold path")
    c.add_argument("--json", action="store_true", help="print each set's counts and episodes "
                                                      "as JSON at the end (progress on stderr)")
    q = esub.add_parser("check-queries", help="household: random queries at every "
                                              "walkthrough step checked against the simulator "
                                              "(answers may be unknown, never wrong)")
    q.add_argument("--split", default="eval", help="eval (default) or train")
    q.add_argument("--limit", type=int, help="first N games")
    q.add_argument("--per-step", type=int, default=3, help="queries at each walkthrough step")
    q.add_argument("--json", action="store_true", help="print the counts as JSON")


def _play(args: argparse.Namespace) -> int:
    from veriplan.envs import make_env
    from veriplan.errors import ConfigError

    task = args.task if args.env == "scienceworld" else args.game
    if not task:
        raise ConfigError(f"give the {'--task' if args.env == 'scienceworld' else '--game'} "
                          "to play")
    options = {"max_steps": args.max_steps} if args.max_steps else {}
    turns: list[dict[str, object]] = []
    done = won = False
    steps = 0

    def say(command: str, kind: str, text: str, **extra: object) -> None:
        print(text)
        turns.append({"input": command, "kind": kind, "output": text, **extra})

    with make_env(args.env, **options) as env:
        obs = env.reset(task)
        description = env.task_description
        print(f"Task: {description}\n\n{obs.text}")
        start = obs.text
        for line in sys.stdin:
            cmd = line.strip()
            if not cmd:
                continue
            if cmd == ":quit":
                break
            if cmd == ":actions":
                say(cmd, "actions", "\n".join(env.valid_actions()))
                continue
            if cmd == ":facts":
                say(cmd, "facts", "\n".join(sorted(map(str, obs.facts))) or "(nothing grounded)")
                continue
            if cmd.startswith(":query "):
                words = cmd.split()[1:]
                q = env.query(words[0], *(" ".join(words[1:]).split(",")))
                say(cmd, "query", f"value {q.value} after {q.steps} step(s) {list(q.actions)}; "
                                  f"facts: {sorted(map(str, q.facts))}")
                continue
            obs, reward, done, info = env.step(cmd)
            steps = info.get("steps", steps + 1)
            say(cmd, "step", obs.text, reward=reward, done=bool(done))
            if done:
                won = bool(info.get("won"))
                print(f"[done: {'won' if won else 'not won'} after "
                      f"{info.get('steps')} step(s)]")
                break
    if args.json:
        emit("env_play", {"env": args.env, "task": task, "description": description,
                          "observation": start, "turns": turns, "steps": steps,
                          "done": bool(done), "won": won, "scope": Scope.ENV_EPISODE})
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    from veriplan.envs import make_env
    from veriplan.envs.check import check_all, select_ids

    if args.walk and not args.models:
        raise ConfigError("--walk goes with --models")
    ok = True
    sets: list[dict[str, object]] = []
    for name in (["household", "scienceworld"] if args.env == "all" else [args.env]):
        ids = select_ids(name, args.split, args.per_task, args.limit)
        with make_env(name) as env:
            if args.models:
                good, summary = _check_models(env, name, ids, args.walk, args.json)
                ok &= good
                sets.append(summary)
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
        sets.append({"env": name, "mode": "gold", "tasks": len(results), "won": won,
                     "facts": facts, "contradicted": contradicted, "episodes": results})
        if not args.json:
            print(f"== {name}: {won}/{len(results)} won; grounder: {facts} facts asserted, "
                  f"{contradicted} contradicted by the simulator")
        ok &= won == len(results) and contradicted == 0
    if args.json:
        emit("env_check", {"ok": bool(ok), "sets": sets})
    return EXIT_OK if ok else EXIT_FAIL


def _check_models(env, name: str, ids: list[str], walk: int | None,
                  quiet: bool = False) -> tuple[bool, dict[str, object]]:
    """The grounded store, the rules' derivations, the state after each step's
    effects and each step's preconditions, against the simulator."""
    from veriplan.envs.check import random_walk, replay_models

    total: dict[str, int] = {}
    bad = won = 0
    episodes = []
    for tid in ids:
        r = replay_models(env, tid, policy=random_walk(tid) if walk else None, steps=walk)
        won += r.won
        for k, n in r.checked.items():
            total[k] = total.get(k, 0) + n
        problems = r.store + r.rules + r.effects + r.preconditions
        bad += len(problems)
        episodes.append({"task_id": tid, "won": r.won, "steps": r.steps, "checked": r.checked,
                         "contradicted": problems})
        print(f"{name} {tid}: {'won' if r.won else 'not won'} in {r.steps} steps; "
              f"checked {r.checked}" + (f"; contradicted: {problems[:3]}" if problems else ""),
              flush=True)
    done = f"{len(ids)} random walks of {walk} steps" if walk else f"{won}/{len(ids)} won"
    if not quiet:
        print(f"== {name}: {done}; facts checked {total}; {bad} contradicted by the simulator")
    summary = {"env": name, "mode": "walk" if walk else "models", "walk_steps": walk,
               "tasks": len(ids), "won": won, "checked": total, "contradicted": bad,
               "episodes": episodes}
    return bad == 0 and (bool(walk) or won == len(ids)), summary


def _check_queries(args: argparse.Namespace) -> int:
    from veriplan.envs.query_check import PREDICATES, query_check

    ids, out = query_check(args.split, args.limit, args.per_step)
    total_a, total_u = sum(out.answered.values()), sum(out.unknown.values())
    if args.json:
        emit("env_check_queries", {
            "games": len(ids), "queries": total_a + total_u, "steps": out.steps,
            "answered": total_a, "unknown": total_u, "contradicted": out.contradicted,
            "by_predicate": {p: {"answered": out.answered[p], "unknown": out.unknown[p]}
                             for p in PREDICATES}})
        return EXIT_FAIL if out.contradicted else EXIT_OK
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
