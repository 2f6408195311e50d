"""Real backends on a real small model: llama.cpp in-process, and the openai
SDK over HTTP against llama-cpp-python's server on loopback."""

from __future__ import annotations

from veriplan.llm import LLM, LLMRequest, ResponseCache, create_backend


def test_llamacpp_in_process(smollm2, tmp_path):
    llm = LLM(create_backend("llamacpp", model_path=str(smollm2)),
              cache=ResponseCache(tmp_path / "c.sqlite"))
    req = LLMRequest.of("Name one colour.", max_tokens=16)
    r = llm.complete(req)
    assert r.backend == "llamacpp" and r.completion_tokens > 0 and r.prompt_tokens > 0
    assert r.text.strip()
    again = llm.complete(req)
    assert again.cached and again.text == r.text


def test_openai_backend_against_llama_cpp_server(llama_server, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = create_backend("openai", model="smollm2", base_url=llama_server)
    llm = LLM(backend, cache=ResponseCache(tmp_path / "c.sqlite"), max_in_flight=2)
    answers = llm.complete_many([LLMRequest.of(f"Say the number {i}.", max_tokens=12)
                                 for i in range(3)])
    assert all(a.backend == "openai" and a.completion_tokens > 0 for a in answers)
    totals = llm.usage.totals()
    assert totals["calls"] == 3 and totals["tokens"] > 0
