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


def test_llamacpp_grammar_greedy_picks_the_librarys_tokens(smollm2):
    """At temperature 0 with a schema, the backend's checked-token-first sampler
    must give the answer llama-cpp-python's own chain (grammar over the whole
    vocabulary, then greedy) gives, on prompts where the model's best token is
    sometimes refused (a fallback) and often allowed."""
    import llama_cpp

    from veriplan.llm.backends.llamacpp import GreedyGrammarSampler, LlamaCppBackend

    backend = LlamaCppBackend(model_path=str(smollm2))
    plain = llama_cpp.Llama(model_path=str(smollm2), n_ctx=2048, verbose=False, seed=0)
    schema = {"type": "object", "required": ["steps", "done"],
              "properties": {"steps": {"type": "array", "maxItems": 3,
                                       "items": {"type": "object", "required": ["action"],
                                                 "properties": {"action": {"type": "string"},
                                                                "cost": {"type": "integer"}}}},
                             "done": {"type": "boolean"}}}
    grammar, _ = backend._grammar(schema)
    checked = fallbacks = 0
    for prompt in ("List the steps to boil an egg as JSON.",
                   "Plan: put the red block on the blue block. Answer in JSON.",
                   "Say hello."):
        msgs = [{"role": "user", "content": prompt}]
        ours = backend._llm.create_chat_completion(messages=msgs, temperature=0.0,
                                                   max_tokens=120, grammar=grammar)
        sampler = backend._llm._sampler
        assert isinstance(sampler, GreedyGrammarSampler)
        checked, fallbacks = checked + sampler.checked, fallbacks + sampler.fallbacks
        theirs = plain.create_chat_completion(messages=msgs, temperature=0.0,
                                              max_tokens=120, grammar=grammar)
        assert ours["choices"][0]["message"]["content"] == \
            theirs["choices"][0]["message"]["content"]
    assert checked > 0 and 0 < fallbacks < checked
