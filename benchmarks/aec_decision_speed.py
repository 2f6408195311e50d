"""AEC's controller: its own time per decision of Algorithm 1 (U and
SELECTPRECONDITION, gating, the query's grounding or the simulation, pruning
and evidence override, then CHECKPRE of the best survivor) at |H| = 20 and
|U| = 30, with an instant predictor and an instant query (no model, no
simulator: what is left is the controller).

    python benchmarks/aec_decision_speed.py [--trials 2000] [--household]

Peers measured in the same run: the same decision written naively over plain
dicts (no entailment rules, no records), and one step of a small in-process
environment (the kitchen of AEC's tests); ``--household`` adds one step of the
household games (TextWorld in its own process). Target: under 2 ms per decision.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

import common  # noqa: F401  (the benchmarks' shared command line)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' kitchen

from veriplan.envs.base import Fact  # noqa: E402
from veriplan.methods.aec.controller import Answer, Controller, Policy  # noqa: E402
from veriplan.methods.aec.domain import GENERIC_RULES  # noqa: E402
from veriplan.methods.aec.predictor import Prediction  # noqa: E402
from veriplan.methods.aec.repair import RuleBook  # noqa: E402
from veriplan.methods.aec.state import GroundedStore, Hypothesis, best  # noqa: E402
from veriplan.methods.aec.verifier import check_pre  # noqa: E402

N_H, N_U, PRE = 20, 30, 8


class Instance:
    """|U| = 30 unresolved predicates (where 30 unseen objects might be), 20
    hypotheses with 8 preconditions each, 100 grounded facts, a predictor
    table (a third each ambiguous, uncertain, confident) and the truth."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        self.keys = [("in", (f"thing {i}", f"shelf {i % 7}")) for i in range(N_U)]
        self.hyps = []
        for h in range(N_H):
            ks = rng.sample(self.keys, PRE) if h else self.keys[:PRE]
            self.hyps.append((tuple(f"step {h}.{j}" for j in range(6)),
                              {k: rng.random() < 0.6 for k in ks}, rng.random()))
        covered = {k for _, pre, _ in self.hyps for k in pre}
        for i, k in enumerate(k for k in self.keys if k not in covered):
            self.hyps[i % N_H][1][k] = True
        self.facts = [Fact("in", (f"seen {i}", f"shelf {i % 7}")) for i in range(80)]
        self.facts += [Fact("open", (f"drawer {i}",), i % 2 == 0) for i in range(19)]
        self.facts.append(Fact("at", ("agent", "shelf 0")))
        self.table = {k: rng.choice([(0.5, 0.1), (0.85, 0.6), (0.95, 0.05), (0.05, 0.05)])
                      for k in self.keys}
        self.truth = {k: rng.random() < 0.5 for k in self.keys}


class Instant:
    def __init__(self, table) -> None:
        self.table = table

    def predict(self, w, key) -> Prediction:
        mu, sigma = self.table[key]
        return Prediction(mu, sigma, sigma)


def ours(inst: Instance) -> tuple[float, int, int]:
    """Seconds for one decision and CHECKPRE, with |H| and |U| at the start."""
    rules = RuleBook(GENERIC_RULES)
    w = GroundedStore(rules)
    w.ground(inst.facts, "observation", 0)
    hs = [Hypothesis(a, dict(pre), s, i) for i, (a, pre, s) in enumerate(inst.hyps)]
    steps = [0]

    def query(key) -> Answer:
        steps[0] += 1
        v = inst.truth[key]
        w.ground([Fact(key[0], key[1], v), Fact("at", ("agent", key[1][1]))], "query",
                 steps[0])
        return Answer(v)

    ctl = Controller(hs, w, Instant(inst.table), query, Policy(), epsilon=0.2, tau=0.2,
                     max_queries=8, actions=None, goal=None)
    start = time.perf_counter()
    unresolved = ctl.unresolved()
    ctl.decide(ctl.select(unresolved))
    h = best(ctl.H)
    if h is not None:
        check_pre(h, w.state, rules)
    return time.perf_counter() - start, len(hs), len(unresolved)


def naive(inst: Instance) -> float:
    """The same decision over plain dicts: no rules, no records, no events."""
    w = {(f.pred, f.args): f.value for f in inst.facts}
    beliefs: dict = {}
    hs = [(a, dict(pre), s) for a, pre, s in inst.hyps]
    start = time.perf_counter()
    counts: dict = {}
    for _, pre, _ in hs:
        for k, e in pre.items():
            if k in w or k in beliefs:
                continue
            c = counts.setdefault(k, [0, 0])
            c[0 if e else 1] += 1
    p = max(counts.items(), key=lambda kv: (min(kv[1]), sum(kv[1])))[0]
    mu, sigma = inst.table[p]
    if abs(mu - 0.5) < 0.2 or sigma > 0.2:
        v = inst.truth[p]
        w[p] = v
    else:
        v = mu >= 0.5
        beliefs[p] = (v, sigma)
    hs = [h for h in hs if h[1].get(p, v) == v]
    if hs:
        h = max(hs, key=lambda h: h[2])
        all(w.get(k) == e for k, e in h[1].items())
    return time.perf_counter() - start


def kitchen_step(n: int) -> float:
    from tests.methods.aec.kitchen import FakeKitchen

    env = FakeKitchen(max_steps=10**9)
    env.reset("hot_apple/fridge")
    cmds = ["go to fridge 1", "open fridge 1", "go to countertop 1", "go to fridge 1"]
    start = time.perf_counter()
    for i in range(n):
        env.step(cmds[i % 4])
    return (time.perf_counter() - start) / n


def household_step(n: int) -> float | None:
    try:
        from veriplan.envs import make_env

        env = make_env("household", max_steps=10**6)
    except Exception as exc:  # TextWorld's Python not installed
        print(f"household step not measured: {exc}")
        return None
    with env:
        env.reset("eval/pick_heat_then_place/0")
        cmds = ["go to fridge 1", "go to countertop 1", "look", "inventory"]
        start = time.perf_counter()
        for i in range(n):
            env.step(cmds[i % 4])
        return (time.perf_counter() - start) / n


def main() -> int:
    ap = common.parser(__doc__)
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--household", action="store_true", help="also time a household step")
    args = ap.parse_args()
    insts = [Instance(s) for s in range(args.trials)]
    for inst in insts[:50]:  # warm up
        ours(inst)
        naive(inst)
    runs = [ours(i) for i in insts]
    assert all(h == N_H and u == N_U for _, h, u in runs), "|H| and |U| are 20 and 30"
    own = [t for t, _, _ in runs]
    dicts = [naive(i) for i in insts]
    step = kitchen_step(max(200, args.trials))
    p50, p90 = statistics.median(own), statistics.quantiles(own, n=10)[8]
    print(f"|H| = {N_H}, |U| = {N_U}, {args.trials} decisions (select, gate, query or "
          f"simulate, prune, evidence override, CHECKPRE)")
    print(f"controller: mean {statistics.mean(own) * 1e3:.3f} ms, p50 {p50 * 1e3:.3f} ms, "
          f"p90 {p90 * 1e3:.3f} ms per decision (target < 2 ms)")
    print(f"naive dicts: mean {statistics.mean(dicts) * 1e3:.3f} ms; ratio controller / "
          f"naive {statistics.mean(own) / statistics.mean(dicts):.1f}")
    print(f"kitchen Env.step: {step * 1e3:.3f} ms; ratio controller / step "
          f"{statistics.mean(own) / step:.2f}")
    if args.household:
        hh = household_step(200)
        if hh is not None:
            print(f"household Env.step (TextWorld): {hh * 1e3:.3f} ms; ratio controller / "
                  f"step {statistics.mean(own) / hh:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
