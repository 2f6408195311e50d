"""``veriplan export-inspect``: a run store written as inspect eval logs and
read back with inspect's own reader, every field against the store."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from inspect_ai.log import read_eval_log

from tests.conftest import REPO
from veriplan.cli import main
from veriplan.methods.records import Entry


@pytest.fixture(scope="module")
def logs(exported):
    return [read_eval_log(str(p)) for p in exported.paths]


def test_one_log_per_arm_with_seeds_as_epochs(exported, logs):
    arms = {(r.method, r.dataset, r.backend, r.model, r.config) for r in exported.records}
    assert len(logs) == len(arms) == 3
    for log in logs:
        units = [r for r in exported.records
                 if f"veriplan/{r.method}/{r.dataset}" == log.eval.task
                 and f"{r.backend}/{r.model}" == log.eval.model]
        assert units and len(log.samples) == len(units)
        seeds = sorted({u.seed for u in units})
        assert log.status == "success" and log.eval.config.epochs == len(seeds)
        assert log.eval.dataset.name == units[0].dataset
        assert log.eval.dataset.samples == len({u.instance for u in units})
        assert log.eval.task_args == json.loads(units[0].config)
        assert log.eval.packages["veriplan"] == units[0].veriplan_version
        [score] = log.results.scores
        rate = sum(u.verified for u in units) / len(units)
        assert score.metrics["accuracy"].value == pytest.approx(rate)
        llm = sum(u.verified and u.solved_by == "llm" for u in units) / len(units)
        assert score.metrics["llm_solved"].value == pytest.approx(llm)
        assert log.stats.model_usage[log.eval.model].total_tokens == sum(u.tokens for u in units)


def test_every_unit_is_a_sample_with_its_fields(exported, logs):
    samples = {s.uuid: (log, s) for log in logs for s in log.samples}
    assert set(samples) == {r.id for r in exported.records}
    seen = {"verified": 0, "failed": 0, "error": 0}
    for rec in exported.records:
        log, s = samples[rec.id]
        result = rec.result_dict()
        md = s.metadata
        assert s.id == rec.instance
        assert s.epoch == sorted({r.seed for r in exported.records
                                  if r.method == rec.method and r.dataset == rec.dataset
                                  and r.model == rec.model}).index(rec.seed) + 1
        for key in ("method", "dataset", "instance", "backend", "model", "seed", "status",
                    "verified", "solved_by", "llm_calls", "tokens", "cost", "seconds",
                    "error_category", "veriplan_version", "dataset_version"):
            assert md[key] == getattr(rec, key), key
        assert md["unit"] == rec.id and md["config"] == json.loads(rec.config)
        assert md["failure"] == (result.get("failure") or rec.error_category)
        assert s.total_time == pytest.approx(rec.seconds)
        assert s.model_usage[f"{rec.backend}/{rec.model}"].total_tokens == rec.tokens
        score = s.scores["veriplan"]
        assert score.value == ("C" if rec.verified else "I")
        assert score.metadata["solved_by"] == rec.solved_by
        # the transcript, call by call: each prompt, then the answer carrying its verdict
        entries = [Entry.from_dict(e) for e in result.get("transcript") or []]
        expected = [t for e in entries for t in ((e.prompt, "user"), (e.response, "assistant"))]
        assert [(m.text, m.role) for m in s.messages] == expected
        answers = [m for m in s.messages if m.role == "assistant"]
        assert [m.metadata["verdict"] for m in answers] == [e.verdict for e in entries]
        assert [m.metadata["ok"] for m in answers] == [e.ok for e in entries]
        if rec.status == "error":
            seen["error"] += 1
            assert s.error is not None and "scripted outage" in s.error.traceback
            assert score.explanation.startswith(f"error ({rec.error_category})")
            assert s.messages == []
        elif rec.verified:
            seen["verified"] += 1
            assert score.answer.splitlines() == result["plan"]
            assert score.explanation == (
                f"verified on your PDDL domain and problem: a {len(result['plan'])}-step plan, "
                f"solved by {rec.solved_by}")
            assert md["scope"] == score.metadata["scope"] == "plan_on_task"
            assert s.output.completion.splitlines() == result["plan"]
            assert md["attempts"] == 2 == len(answers)  # wrong, feedback, right
        else:
            seen["failed"] += 1
            assert score.explanation == result["last_diagnosis"]
            assert "Step 1 (stack a a)" in score.explanation
            assert score.metadata["failed_step"] == 1
            assert score.metadata["failed_action"] == "stack"
            assert "holding" in score.metadata["missing"]
            assert s.output.completion.startswith("(stack a a)")
    assert seen == {"verified": 4, "failed": 4, "error": 1}


def test_export_again_rewrites_the_same_files(exported, tmp_path, capsys):
    assert main(["export-inspect", str(exported.runs), "--out", str(exported.logs)]) == 0
    assert sorted(exported.logs.glob("*.eval")) == exported.paths
    out = capsys.readouterr().out
    assert f"inspect view --log-dir {exported.logs}" in out


def test_not_a_run_store_is_a_clear_error(tmp_path, capsys):
    assert main(["export-inspect", str(tmp_path), "--out", str(tmp_path / "logs")]) == 2
    assert "no run store in" in capsys.readouterr().err


def test_without_the_extra_the_error_names_it(exported):
    """As if inspect-ai were not installed: the command says which extra to install."""
    code = ("import sys; sys.modules['inspect_ai'] = None\n"
            "from veriplan.cli import main\n"
            f"sys.exit(main(['export-inspect', {str(exported.runs)!r}, '--out', 'unused']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "pip install 'veriplan[inspect]'" in done.stderr
    assert "Traceback" not in done.stderr
