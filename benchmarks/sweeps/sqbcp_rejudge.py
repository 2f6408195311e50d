"""Re-derive a hidden-precondition run store under the current acceptance (issue 30),
from the answers it holds, without running a model.

    python benchmarks/sweeps/sqbcp_rejudge.py results/sqbcp-qwen --data-dir ../shared/data
    python benchmarks/sweeps/sqbcp_rejudge.py RUN_DIR --write      # replace the units in place
    python benchmarks/sweeps/sqbcp_rejudge.py RUN_DIR --seed-cache # also put the stored answers
                                                                   # in the LLM cache
    (a store already written holds no answers for the diverged units: seed the cache from
    the store as it was, e.g. ``git show 3d9040c:results/sqbcp-qwen/runs.sqlite``)

- Baselines (direct, CoT, ToT, ReAct, Self-Ask): the stored plan is judged again by the
  task's decider. Their prompts and answers do not depend on the decider, so this is
  the unit as a run of the current code would end.
- SQ-BCP: the search is replayed with the stored answers: a backend that answers each
  prompt with the answer the model gave to that exact prompt (system and user message)
  in the unit's transcript, and fails on any other prompt. A replay that ends is the
  unit as the current code ends it on the same model (temperature 0: the same prompt
  gets the same answer). A replay that needs a prompt the store does not hold (the new
  acceptance rejected a chain the old run accepted, so the search goes on) is reported
  as diverged, with the call and the reason; with ``--write`` it is stored as an error
  unit (``replay_diverged``, its old result kept in the error text's record), which
  ``veriplan bench ... --rerun-errors`` re-runs with the model; ``--seed-cache`` first
  puts every stored answer in the LLM cache so that only the new prompts reach it.

Prints one line per unit and a summary per method and dataset (JSON with ``--json``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from veriplan.bench.datasets import load_dataset
from veriplan.bench.store import RunStore, UnitRecord
from veriplan.core.verdict import Verdict
from veriplan.domains.hidden.metrics import judge
from veriplan.domains.hidden.task import HiddenTask
from veriplan.llm import LLM, ScriptedBackend
from veriplan.llm.types import LLMRequest, LLMResponse
from veriplan.methods import get_method

BASELINES = ("hidden-direct", "hidden-cot", "hidden-tot", "hidden-react", "self-ask")


class Diverged(Exception):
    """The replayed search asked a prompt the stored transcript does not hold."""


class Replay:
    """Answers a prompt with the stored answer to that exact prompt."""

    def __init__(self, transcript: list[Mapping[str, Any]], system: str) -> None:
        self.answers: dict[tuple[str, str], str] = {}
        for e in transcript:
            if e.get("call") is not None and e.get("prompt") is not None:
                self.answers.setdefault((system, e["prompt"]), e["response"])
        self.system = system
        self.calls = 0
        self.requests: list[tuple[LLMRequest, str]] = []
        self.missed: LLMRequest | None = None

    def __call__(self, request: LLMRequest) -> str:
        system = next((m.content for m in request.messages if m.role == "system"), "")
        user = request.messages[-1].content
        answer = self.answers.get((system, user))
        if answer is None:
            self.missed = request
            raise Diverged(f"call {self.calls + 1}: a prompt the stored transcript does not "
                           f"hold ({user.splitlines()[-1][:60]!r}...)")
        self.calls += 1
        self.requests.append((request, answer))
        return answer


def task_of(rec: UnitRecord, datasets: dict[str, Any], data_dir: str | None) -> HiddenTask:
    """The unit's task. A dataset's tasks are built in the dataset's order, as a sweep
    builds them: a hidden-fact PDDL task's withheld facts depend on the order its
    domain's facts were first numbered in the process (found here: 3 of the 50
    Blocksworld units of results/sqbcp-qwen were built as a process's first task);
    :func:`fresh_task` builds one that way."""
    if rec.dataset not in datasets:
        ds = load_dataset(rec.dataset, data_dir)
        datasets[rec.dataset] = {i.id: i for i in ds.instances}
    return datasets[rec.dataset][rec.instance].problem("hidden")


def fresh_task(rec: UnitRecord, datasets: dict[str, Any], data_dir: str | None) -> HiddenTask:
    """The unit's task built as the first task of a process (the caches that number
    a domain's facts emptied first)."""
    from veriplan.domains.hidden import datasets as hidden_datasets
    from veriplan.domains.hidden import pddl_hidden

    for fn in (pddl_hidden._domain, pddl_hidden.true_task, hidden_datasets._task):
        fn.cache_clear()
    return task_of(rec, datasets, data_dir)


def rejudge_baseline(rec: UnitRecord, task: HiddenTask) -> dict[str, Any]:
    res = rec.result_dict()
    plan = list(res.get("plan") or [])
    j = judge(task, plan)
    for k in ("rouge1", "rouge2", "bleu"):  # against the reference as the run built it
        if k in res.get("metrics", {}):
            j[k] = res["metrics"][k]
    verified = bool(plan) and j["verdict"] == Verdict.VALID.value
    failure = None if verified else ("no_plan" if not plan else "violation" if j["violated"]
                                     else "unknown" if j["unknown"] else "wrong")
    verdict = "no plan read" if not plan else (
        "valid on the true task" if verified else
        f"{j['verdict']} on the true task: " + "; ".join(j["violations"]))
    res["metrics"] = {**res.get("metrics", {}), **j}
    res.update(verified=verified, failure=failure, solved_by="llm" if verified else None,
               last_diagnosis="" if verified else verdict)
    # the transcript's judged call says what the decider says now (as the method's
    # _finish writes it), so `veriplan trace` shows the new verdict
    for e in reversed(res.get("transcript") or []):
        if e.get("call") is not None and e.get("ok") is not None and e.get("plan") == plan:
            e["ok"], e["verdict"] = verified, verdict
            break
    return res


def replay_sqbcp(rec: UnitRecord, task: HiddenTask) -> tuple[dict[str, Any] | None, str, Replay]:
    from veriplan.methods.sqbcp.method import SYSTEM

    old = rec.result_dict()
    spec = get_method("sqbcp")
    config = spec.make_config(json.loads(rec.config))
    replay = Replay(old.get("transcript") or [], SYSTEM)
    llm = LLM(ScriptedBackend(fn=replay))
    verdicts: list[str] = []  # every verification, in order

    def watch(event: Any) -> None:
        if getattr(event, "kind", "") == "verify":
            verdicts.append(str(getattr(event, "text", "")))

    # The replay makes the same meets in the same order up to where it diverges: the
    # chain the old run accepted is the new run's verification of the same rank.
    old_verifies = [e for e in old.get("transcript") or [] if e.get("role") == "verify"]
    rank = next((i for i, e in enumerate(old_verifies) if e.get("ok")), None)
    try:
        new = spec.solve(task, llm, config, observer=watch)
    except Diverged as exc:
        was = (f"; the chain accepted before: {verdicts[rank]}"
               if rank is not None and rank < len(verdicts) else "")
        return None, f"{exc}{was}", replay
    d = new.to_dict()
    # the unit's cost is the stored run's (the replay spent no model time)
    for k in ("llm_calls", "tokens", "seconds", "cost", "cache_hits", "backend", "model"):
        d[k] = old.get(k, d.get(k))
    d["metrics"]["replayed_calls"] = replay.calls
    return d, "", replay


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--write", action="store_true", help="replace the units in the store")
    ap.add_argument("--seed-cache", action="store_true",
                    help="put every stored SQ-BCP answer in the LLM cache")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated methods")
    args = ap.parse_args(argv)
    store = RunStore(args.run_dir, create=False)
    datasets: dict[str, Any] = {}
    only = {m for m in args.only.split(",") if m}
    summary: dict[tuple[str, str], Counter] = defaultdict(Counter)
    out_units = []
    cache = None
    if args.seed_cache:
        from veriplan.llm.cache import ResponseCache, default_cache_path

        cache = ResponseCache(default_cache_path())
    for rec in sorted(store.records(), key=lambda r: (r.method, r.dataset, r.instance)):
        if rec.status != "done" or (only and rec.method not in only):
            continue
        if rec.method not in (*BASELINES, "sqbcp"):
            continue
        task = task_of(rec, datasets, args.data_dir)
        old = rec.result_dict()
        was = "verified" if rec.verified else ("accepted" if old.get("metrics", {}).get(
            "accepted") else "not verified")
        cell = summary[(rec.method, rec.dataset)]
        cell["units"] += 1
        cell[f"before: {was}"] += 1
        if rec.method == "sqbcp" and json.loads(rec.config).get("ablation", "none") == "none":
            new, why, replay = replay_sqbcp(rec, task)
            if why.startswith("call 1:") and rec.dataset.startswith("sqbcp_pddl"):
                task = fresh_task(rec, datasets, args.data_dir)
                new, why, replay = replay_sqbcp(rec, task)
                fresh_task(rec, datasets, args.data_dir)  # the caches emptied again
            if cache is not None:
                for request, answer in replay.requests:  # keyed as the unit's model asks
                    cache.put(rec.backend, request.with_model(rec.model),
                              LLMResponse(answer, backend=rec.backend, model=rec.model))
        else:
            new, why = rejudge_baseline(rec, task), ""
        if new is None:
            cell["diverged"] += 1
            line = {"unit": rec.id, "method": rec.method, "instance": rec.instance,
                    "before": was, "after": "diverged", "why": why}
            if args.write:
                store.replace(dataclasses.replace(
                    rec, status="error", verified=False, solved_by=None,
                    error_category="replay_diverged",
                    error=(f"re-derived under issue 30's acceptance: {why}; the stored "
                           "answers end there, so the unit must be re-run with the model "
                           f"(it was '{was}' under the old acceptance)"),
                    result=None))
        else:
            m = new["metrics"]
            after = "verified" if new["verified"] else m.get("verdict") or "no plan"
            if rec.method == "sqbcp":
                after = ("verified" if new["verified"] else
                         f"accepted, {m.get('verdict')}" if m.get("accepted") else "no plan")
            cell[f"after: {after}"] += 1
            cell["violated"] += bool(m.get("violated"))
            line = {"unit": rec.id, "method": rec.method, "instance": rec.instance,
                    "before": was, "after": after, "verdict": m.get("verdict"),
                    "findings": [f["kind"] for f in (m.get("judgement") or {}).get(
                        "findings", [])]}
            if args.write:
                store.replace(dataclasses.replace(
                    rec, verified=bool(new["verified"]), solved_by=new.get("solved_by"),
                    result=json.dumps(new, ensure_ascii=False)))
        out_units.append(line)
        if not args.json:
            print(f"{rec.method:13} {rec.instance:28} {was:13} -> {line['after']}"
                  + (f"  ({line.get('why') or ', '.join(line.get('findings', []))})"
                     if line.get("why") or line.get("findings") else ""), flush=True)
    if args.write:
        store.compact()
    table = {f"{m} / {d}": dict(c) for (m, d), c in sorted(summary.items())}
    if args.json:
        json.dump({"units": out_units, "summary": table}, sys.stdout, indent=1)
        print()
    else:
        print()
        for k, c in table.items():
            print(k, json.dumps(c, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
