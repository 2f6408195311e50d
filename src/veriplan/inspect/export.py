"""A veriplan run store written as inspect eval logs, for ``inspect view``.

One log per arm of the store (method, dataset, backend, model, settings); its
seeds become inspect's epochs and each unit one sample: the method's
transcript as the messages (each prompt, then the model's answer, with the
verdict on it in the answer's metadata), the verdict as the score (C when the
validator accepted the plan; the explanation is the diagnosis), and solved_by,
calls, tokens, cost, time and the failure category as metadata. A unit that
ended in an error is a sample with that error and an I score. File names are
stable, so exporting again rewrites the same files.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalPlan,
    EvalPlanStep,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.scorer import CORRECT, INCORRECT, Score

from veriplan.bench.store import RunStore, UnitRecord
from veriplan.errors import ConfigError
from veriplan.methods.records import Entry

SCORER = "veriplan"  # the score's name in every exported sample
Arm = tuple[str, str, str, str, str]  # method, dataset, backend, model, config


def _iso(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat()


def _digest(*parts: str, n: int = 22) -> str:
    """A stable id of letters and digits (no '-' or '_': inspect's file names
    split on them)."""
    h = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
    return h[:n]


def unit_messages(transcript: Iterable[Entry]) -> list[ChatMessage]:
    """The transcript as a conversation: each entry's prompt, then its answer
    carrying the verdict (``ok``, ``verdict``, the plan read, unread lines) in
    its metadata; an entry that is no model call (a DRIP tree, an AutoToS
    check) is a user-side note ``[veriplan <role>] <verdict>``."""
    out: list[ChatMessage] = []
    for e in transcript:
        verdict = {"call": e.call, "role": e.role, "ok": e.ok, "verdict": e.verdict,
                   "plan": list(e.plan), "unread": list(e.unread), "cached": e.cached}
        if e.prompt:
            out.append(ChatMessageUser(content=e.prompt))
        if e.response:
            out.append(ChatMessageAssistant(content=e.response, metadata=verdict))
        elif not e.prompt and e.verdict:
            out.append(ChatMessageUser(content=f"[veriplan {e.role}] {e.verdict}",
                                       metadata=verdict))
    return out


def _verdict(rec: UnitRecord, result: dict[str, Any]) -> str:
    if rec.status == "error":
        last = (rec.error or "").strip().splitlines()
        return f"error ({rec.error_category}): {last[-1] if last else 'no traceback'}"
    plan = result.get("plan") or []
    if rec.verified:
        on = f" {rec.scope.describes}" if rec.scope is not None else ""
        return (f"verified{on}: a {len(plan)}-step plan, solved by {rec.solved_by or 'llm'}")
    return result.get("last_diagnosis") or "no verified plan"


def unit_sample(rec: UnitRecord, epoch: int) -> EvalSample:
    """One unit of the store as an inspect sample."""
    result = rec.result_dict()
    transcript = [Entry.from_dict(e) for e in result.get("transcript") or []]
    messages = unit_messages(transcript)
    first = next((e.prompt for e in transcript if e.prompt), "")
    plan = [str(s) for s in result.get("plan") or []]
    last = next((e.response for e in reversed(transcript) if e.response), "")
    failure = result.get("failure") or rec.error_category
    metadata = {
        "unit": rec.id, "method": rec.method, "dataset": rec.dataset, "instance": rec.instance,
        "backend": rec.backend, "model": rec.model, "config": json.loads(rec.config or "{}"),
        "seed": rec.seed, "status": rec.status, "verified": rec.verified,
        "scope": rec.scope.value if rec.scope is not None else None,
        "solved_by": rec.solved_by, "llm_calls": rec.llm_calls, "tokens": rec.tokens,
        "cost": rec.cost, "seconds": rec.seconds, "failure": failure,
        "error_category": rec.error_category, "attempts": result.get("attempts"),
        "cache_hits": result.get("cache_hits"), "metrics": result.get("metrics") or {},
        "veriplan_version": rec.veriplan_version, "dataset_version": rec.dataset_version,
    }
    signals = result.get("signals") or []
    last_signal = signals[-1] if signals else {}
    score = Score(value=CORRECT if rec.verified else INCORRECT, answer="\n".join(plan),
                  explanation=_verdict(rec, result),
                  metadata={"verified": rec.verified,
                            "scope": rec.scope.value if rec.scope is not None else None,
                            "solved_by": rec.solved_by,
                            "failure": failure, "attempts": result.get("attempts"),
                            # the last attempt's failure signals (which step, which action,
                            # the predicates it missed, the kinds of failure)
                            "failed_step": last_signal.get("failed_step"),
                            "failed_action": last_signal.get("action"),
                            "missing": last_signal.get("missing") or [],
                            "failure_kinds": last_signal.get("failure") or []})
    error = None
    if rec.status == "error":
        error = EvalError(message=_verdict(rec, result), traceback=rec.error or "",
                          traceback_ansi=rec.error or "")
    usage = ModelUsage(total_tokens=rec.tokens, total_cost=rec.cost)
    model = f"{rec.backend}/{rec.model}"
    return EvalSample(
        id=rec.instance, epoch=epoch, input=first or f"{rec.dataset}/{rec.instance}",
        target="", messages=messages,
        output=ModelOutput.from_content(model, "\n".join(plan) if plan else last),
        scores={SCORER: score}, metadata=metadata, model_usage={model: usage},
        started_at=_iso(rec.finished - rec.seconds), completed_at=_iso(rec.finished),
        total_time=rec.seconds, working_time=rec.seconds, uuid=rec.id, error=error)


def _metrics(recs: list[UnitRecord]) -> dict[str, EvalMetric]:
    n = len(recs)
    rate = sum(r.verified for r in recs) / n
    llm = sum(r.verified and r.solved_by == "llm" for r in recs) / n
    stderr = math.sqrt(rate * (1 - rate) / (n - 1)) if n > 1 else 0.0
    return {"accuracy": EvalMetric(name="accuracy", value=rate),
            "stderr": EvalMetric(name="stderr", value=stderr),
            "llm_solved": EvalMetric(name="llm_solved", value=llm)}


def arm_log(arm: Arm, recs: list[UnitRecord], source: Path) -> EvalLog:
    """The units of one arm as one inspect eval log (seeds as epochs)."""
    method, dataset, backend, model, config = arm
    seeds = sorted({r.seed for r in recs})
    epoch = {s: k + 1 for k, s in enumerate(seeds)}
    recs = sorted(recs, key=lambda r: (r.instance, r.seed))
    samples = [unit_sample(r, epoch[r.seed]) for r in recs]
    ids = sorted({r.instance for r in recs})
    settings = json.loads(config or "{}")
    start = min(r.finished - r.seconds for r in recs)
    end = max(r.finished for r in recs)
    name = f"{backend}/{model}"
    key = _digest(*arm)
    usage = ModelUsage(total_tokens=sum(r.tokens for r in recs),
                       total_cost=sum(r.cost or 0.0 for r in recs))
    spec = EvalSpec(
        eval_id=key, run_id=_digest(str(source.resolve())), created=_iso(start),
        task=f"veriplan/{method}/{dataset}", task_id=key,
        task_display_name=f"{method} on {dataset}",
        task_args=settings, task_args_passed=settings,
        dataset=EvalDataset(name=dataset, samples=len(ids), sample_ids=ids),
        model=name, config=EvalConfig(epochs=len(seeds)),
        packages={"veriplan": recs[0].veriplan_version},
        metadata={"veriplan_runs": str(source), "seeds": seeds,
                  "dataset_version": recs[0].dataset_version, "backend": backend})
    results = EvalResults(
        total_samples=len(samples), completed_samples=len(samples),
        scores=[EvalScore(name=SCORER, scorer=SCORER, scored_samples=len(samples),
                          unscored_samples=0, metrics=_metrics(recs))])
    return EvalLog(
        status="success", eval=spec,
        plan=EvalPlan(steps=[EvalPlanStep(solver=f"veriplan/{method}", params=settings)]),
        results=results, samples=samples,
        stats=EvalStats(started_at=_iso(start), completed_at=_iso(end),
                        model_usage={name: usage}))


def log_name(arm: Arm, created: str) -> str:
    """``{timestamp}_{task}_{id}.eval`` as inspect names its logs."""
    stamp = created[:19].replace(":", "-")
    task = f"veriplan-{arm[0]}-{arm[1]}".replace("_", "-")
    return f"{stamp}_{task}_{_digest(*arm)}.eval"


def export_runs(runs_dir: str | Path, out: str | Path) -> list[Path]:
    """Write every arm of the run store in ``runs_dir`` as an inspect eval log
    in ``out`` (made if missing); the paths written, in arm order."""
    source = Path(runs_dir)
    store = RunStore(source, create=False)
    try:
        arms: dict[Arm, list[UnitRecord]] = defaultdict(list)
        for rec in store.records():
            arms[(rec.method, rec.dataset, rec.backend, rec.model, rec.config)].append(rec)
    finally:
        store.close()
    if not arms:
        raise ConfigError(f"the run store in {source} holds no units: nothing to export")
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for arm in sorted(arms):
        log = arm_log(arm, arms[arm], source)
        path = target / log_name(arm, log.eval.created)
        write_eval_log(log, path)
        written.append(path)
    return written
