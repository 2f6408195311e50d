"""The client around every backend: cache, retries, concurrency, accounting,
cassettes. Driven by the scripted backend."""

from __future__ import annotations

import random
import threading
import time

import pytest

from veriplan.errors import (
    AuthenticationError,
    BackendError,
    RateLimitError,
    ReplayMissError,
    TransientBackendError,
)
from veriplan.llm import LLM, LLMRequest, PriceTable, ResponseCache, RetryPolicy, ScriptedBackend
from veriplan.llm.backends.replay import CassetteRecorder, ReplayBackend
from veriplan.llm.registry import create_backend
from veriplan.llm.retry import with_retries


def test_request_key_covers_decoding_and_sample_index():
    a = LLMRequest.of("hi", model="m")
    assert a.key("x") == LLMRequest.of("hi", model="m").key("x")
    for other in (LLMRequest.of("hi", model="m", sample_index=1),
                  LLMRequest.of("hi", model="m", temperature=0.5),
                  LLMRequest.of("hi", model="n"), LLMRequest.of("ho", model="m")):
        assert other.key("x") != a.key("x")
    assert a.key("x") != a.key("y")
    assert LLMRequest.from_dict(a.to_dict()) == a


def test_cache_hit_on_second_call(tmp_path):
    backend = ScriptedBackend(["first"])
    llm = LLM(backend, cache=ResponseCache(tmp_path / "c.sqlite"))
    r1 = llm.complete(LLMRequest.of("q"))
    r2 = llm.complete(LLMRequest.of("q"))
    assert (r1.text, r1.cached, r2.text, r2.cached) == ("first", False, "first", True)
    assert len(backend.requests) == 1
    assert llm.cache.stats() == {"hits": 1, "misses": 1}
    assert llm.usage.totals()["cache_hits"] == 1
    # Another process (here: another cache object) sees it too.
    assert ResponseCache(tmp_path / "c.sqlite").get("scripted", LLMRequest.of(
        "q", model="scripted")).text == "first"


def test_cache_never_stores_secrets(tmp_path):
    create = create_backend("scripted")
    llm = LLM(create, cache=ResponseCache(tmp_path / "c.sqlite"))
    create.enqueue(["ok"])
    llm.complete(LLMRequest.of("q"))
    raw = (tmp_path / "c.sqlite").read_bytes()
    assert b"sk-" not in raw and b"api_key" not in raw


def test_retries_honour_retry_after_and_stop_on_auth():
    sleeps: list[float] = []
    calls = iter([RateLimitError("slow down", retry_after=7.0), TransientBackendError("503"),
                  "ok"])

    def fn():
        item = next(calls)
        if isinstance(item, Exception):
            raise item
        return item

    out, attempts = with_retries(fn, RetryPolicy(max_attempts=5, base_delay=0.1),
                                 sleep=sleeps.append, rng=random.Random(0))
    assert out == "ok" and attempts == 3
    assert sleeps[0] >= 7.0 and sleeps[1] <= 0.2

    def auth():
        raise AuthenticationError("no API key: set OPENAI_API_KEY or pass --api-key")
    with pytest.raises(AuthenticationError):
        with_retries(auth, RetryPolicy(), sleep=sleeps.append)
    assert len(sleeps) == 2

    def always():
        raise TransientBackendError("down")
    with pytest.raises(TransientBackendError) as info:
        with_retries(always, RetryPolicy(max_attempts=3), sleep=lambda s: None)
    assert info.value.attempts == 3


def test_bounded_in_flight():
    active = 0
    peak = 0
    lock = threading.Lock()

    def answer(req):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.02)
        with lock:
            active -= 1
        return req.messages[-1].content.upper()

    llm = LLM(ScriptedBackend(fn=answer), max_in_flight=4)
    out = llm.complete_many([LLMRequest.of(f"q{i}") for i in range(20)])
    assert [r.text for r in out] == [f"Q{i}" for i in range(20)]
    assert peak == 4
    assert llm.usage.totals()["calls"] == 20



def test_a_serial_backend_gets_the_requests_one_by_one_in_order():
    """llama.cpp answers one call at a time: complete_many sends in order (so a
    request follows the one whose prompt prefix it shares), never in parallel."""
    seen, active, peak = [], 0, 0

    def answer(req):
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        seen.append(req.messages[-1].content)
        time.sleep(0.002)
        active -= 1
        return "ok"

    backend = ScriptedBackend(fn=answer)
    backend.serial = True
    prompts = [f"q{i}" for i in range(12)]
    LLM(backend, max_in_flight=4).complete_many([LLMRequest.of(p) for p in prompts])
    assert seen == prompts and peak == 1

def test_usage_and_costs(tmp_path):
    prices = tmp_path / "p.json"
    prices.write_text('{"gpt-x": [1.0, 2.0]}')
    table = PriceTable().load(prices)
    from veriplan.llm.types import LLMResponse

    assert table.cost(LLMResponse("t", prompt_tokens=1000, completion_tokens=500,
                                  backend="openai", model="gpt-x")) == pytest.approx(0.002)
    assert table.cost(LLMResponse("t", backend="openai", model="unknown")) is None
    assert table.cost(LLMResponse("t", backend="llamacpp", model="q")) == 0.0


def test_record_then_replay(tmp_path):
    cassette = tmp_path / "tape.jsonl"
    llm = LLM(ScriptedBackend(["one", "two"]), recorder=CassetteRecorder(cassette))
    llm.complete(LLMRequest.of("a"))
    llm.complete(LLMRequest.of("b", sample_index=1))
    replay = LLM(ReplayBackend(cassette, model="scripted"))
    assert replay.complete(LLMRequest.of("a")).text == "one"
    assert replay.complete(LLMRequest.of("b", sample_index=1)).text == "two"
    with pytest.raises(ReplayMissError, match="has no answer for this request"):
        replay.complete(LLMRequest.of("b"))


def test_scripted_backend_errors_and_registry():
    with pytest.raises(BackendError, match="no answer left"):
        ScriptedBackend().complete(LLMRequest.of("q"))
    with pytest.raises(BackendError, match="unknown backend"):
        create_backend("nope")
    with pytest.raises(BackendError, match="needs a cassette"):
        create_backend("replay")


def test_openai_and_anthropic_need_keys(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AuthenticationError, match="set OPENAI_API_KEY or pass --api-key"):
        create_backend("openai", model="gpt-x")
    with pytest.raises(AuthenticationError, match="set ANTHROPIC_API_KEY"):
        create_backend("anthropic", model="claude-x")
