"""Decoding as the paper's: greedy, "with maximum context length". AutoToS asks
for no limit but the model's context (``max_tokens=None``); llama.cpp then
answers until the context is full, and a conversation that no longer fits ends
the run with its record."""

from __future__ import annotations

import pytest

from veriplan.domains.autotos import get_domain
from veriplan.llm import LLM, ScriptedBackend, create_backend
from veriplan.methods.autotos import Config, run_loop

DOMAIN = get_domain("24game")


@pytest.fixture(scope="module")
def data(data_dir):
    return DOMAIN.load(data_dir)


def test_requests_are_greedy_with_no_limit_but_the_context(data):
    assert Config().max_tokens is None and Config().temperature == 0.0
    backend = ScriptedBackend([f"```python\n{DOMAIN.reference_code(w)}```"
                               for w in ("succ", "goal")])
    rec = run_loop(DOMAIN, data, LLM(backend), Config(eval_limit=3, evaluate_progress=False))
    assert rec.status == "passed"
    assert [(r.max_tokens, r.temperature) for r in backend.requests] == [(None, 0.0)] * 2
    # a cap is still a setting: each answer then stops there
    backend = ScriptedBackend([f"```python\n{DOMAIN.reference_code(w)}```"
                               for w in ("succ", "goal")])
    run_loop(DOMAIN, data, LLM(backend), Config(eval_limit=3, evaluate_progress=False,
                                                max_tokens=300))
    assert [r.max_tokens for r in backend.requests] == [300, 300]


def test_llamacpp_answers_until_the_context_is_full_then_the_run_ends(data):
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is installed by `make test`")
    from veriplan.llm.models import prepare_model

    backend = create_backend("llamacpp", model_path=str(prepare_model("smollm2-135m")),
                             n_ctx=256)
    rec = run_loop(DOMAIN, data, LLM(backend), Config(eval_limit=3, evaluate_progress=False))
    calls = [s for s in rec.steps if s["kind"] == "call"]
    # llama.cpp read max_tokens=None as "up to the context": each answer filled it
    assert calls and all(c["finish_reason"] == "length" for c in calls)
    assert all(c["prompt_tokens"] + c["completion_tokens"] == 256 for c in calls)
    # the next request did not fit: the run ends, recorded, with its components so far
    assert rec.status == "context_exceeded" and rec.steps[-1]["kind"] == "stop"
    assert "exceed context window" in rec.steps[-1]["reason"]
    assert "final" in rec.accuracy or rec.succ_code is None or rec.goal_code is None
