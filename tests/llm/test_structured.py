"""Structured output: a JSON schema per request, in the cache key and in
cassettes, enforced per backend, and replies read against it as values."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from veriplan.errors import ConfigError, ReplayMissError, TransientBackendError
from veriplan.llm import (
    LLM,
    LLMRequest,
    ResponseCache,
    RetryPolicy,
    ScriptedBackend,
    StructuredResponse,
    create_backend,
    parse_structured,
)
from veriplan.llm.backends.replay import CassetteRecorder, ReplayBackend
from veriplan.llm.structured import strict_compatible

YES_NO = {"type": "object", "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
          "required": ["answer"]}
HYPOTHESES = {
    "type": "array", "minItems": 1, "maxItems": 3,
    "items": {"type": "object", "additionalProperties": False,
              "required": ["action", "score"],
              "properties": {"action": {"type": "string"},
                             "score": {"type": "number"},
                             "preconditions": {"type": "array", "items": {"type": "string"}}}},
}


# --- the request: cache key, records ------------------------------------------------------

def test_plain_requests_keep_their_old_cache_keys():
    # The key this request had before requests could carry a schema (computed
    # with the previous LLMRequest): existing caches and cassettes stay valid.
    r = LLMRequest.of("Is the sky blue?", system="Answer in JSON.", model="m", max_tokens=32)
    assert r.key("scripted") == "e7d34e9a6867c375ab51a24f0ce2af3fefcefcdfaf07c38f225dc528a358a668"
    assert "schema" not in r.canonical("scripted") and "schema" not in r.to_dict()
    # A name without a schema changes nothing either.
    assert LLMRequest.of("q", schema_name="other").key("x") == LLMRequest.of("q").key("x")


def test_the_schema_changes_the_key():
    plain = LLMRequest.of("Is the sky blue?", model="m")
    structured = plain.with_schema(YES_NO)
    assert structured.key("x") != plain.key("x")
    assert structured.with_schema(HYPOTHESES).key("x") != structured.key("x")
    assert structured.with_schema(YES_NO, "verdict").key("x") != structured.key("x")
    assert structured.with_schema(None).key("x") == plain.key("x")
    reordered = dict(reversed(list(YES_NO.items())))
    assert plain.with_schema(reordered).key("x") == structured.key("x")
    assert LLMRequest.from_dict(structured.to_dict()) == structured
    assert LLMRequest.from_dict(json.loads(json.dumps(structured.to_dict()))).key("x") == \
        structured.key("x")


def test_a_request_keeps_its_own_copy_of_the_schema():
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    r = LLMRequest.of("q", schema=schema)
    key = r.key("x")
    schema["properties"]["b"] = {"type": "number"}
    assert r.key("x") == key and "b" not in r.schema["properties"]
    with pytest.raises(ConfigError, match="schema name"):
        LLMRequest.of("q", schema=YES_NO, schema_name="has spaces")
    with pytest.raises(ConfigError, match="dict"):
        LLMRequest.of("q", schema='{"type": "object"}')


def test_cache_keys_on_the_schema(tmp_path):
    backend = ScriptedBackend(['{"answer": "yes"}', "plain text", '{"answer": "no"}'])
    llm = LLM(backend, cache=ResponseCache(tmp_path / "c.sqlite"))
    first = llm.complete_structured(LLMRequest.of("Is the sky blue?"), YES_NO)
    assert (first.value, first.error, first.response.cached) == ({"answer": "yes"}, None, False)
    assert llm.complete(LLMRequest.of("Is the sky blue?")).text == "plain text"  # another key
    again = llm.complete_structured(LLMRequest.of("Is the sky blue?"), YES_NO)
    assert again.response.cached and again.value == {"answer": "yes"}
    other = llm.complete_structured(LLMRequest.of("Is the sky blue?"), YES_NO, name="verdict")
    assert not other.response.cached and other.value == {"answer": "no"}
    assert len(backend.requests) == 3
    totals = llm.usage.totals()
    assert (totals["calls"], totals["cache_hits"]) == (4, 1)


# --- backends -----------------------------------------------------------------------------

def test_the_scripted_backend_sees_the_schema():
    def answer(request: LLMRequest) -> str:
        if request.schema is None:
            return "no schema"
        options = request.schema["properties"]["answer"]["enum"]
        return json.dumps({"answer": options[-1]})

    backend = ScriptedBackend(fn=answer)
    llm = LLM(backend)
    out = llm.complete_structured(LLMRequest.of("Is water wet?"), YES_NO, name="verdict")
    assert isinstance(out, StructuredResponse) and out.ok and out.value == {"answer": "no"}
    assert backend.requests[0].schema == YES_NO
    assert backend.requests[0].schema_name == "verdict"
    assert llm.complete(LLMRequest.of("Is water wet?")).text == "no schema"


def test_a_recorded_structured_answer_replays(tmp_path):
    cassette = tmp_path / "run.jsonl"
    backend = ScriptedBackend(['Sure:\n```json\n[{"action": "stack a b", "score": 0.7}]\n```'])
    recorded = LLM(backend, recorder=CassetteRecorder(cassette)).complete_structured(
        LLMRequest.of("Propose hypotheses."), HYPOTHESES, name="hypotheses")
    assert recorded.value == [{"action": "stack a b", "score": 0.7}]
    line = json.loads(cassette.read_text())
    assert line["request"]["schema"] == HYPOTHESES
    assert line["request"]["schema_name"] == "hypotheses"

    replay = LLM(ReplayBackend(cassette, model="scripted"))
    again = replay.complete_structured(LLMRequest.of("Propose hypotheses."), HYPOTHESES,
                                       name="hypotheses")
    assert (again.value, again.error, again.response.backend) == (recorded.value, None, "replay")
    with pytest.raises(ReplayMissError):  # the same prompt without the schema was never recorded
        replay.complete(LLMRequest.of("Propose hypotheses."))


# --- reading replies ----------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '{"answer": "yes"}',
    '  {"answer":"yes"}\n',
    'Here you are:\n```json\n{"answer": "yes"}\n```\nAnything else?',
    'I think the answer is {"answer": "yes"} because the sky scatters blue light.',
    "{'answer': 'yes',}",
    'First a wrong one {"answer": "maybe"}, then the right one: {"answer": "yes"}',
])
def test_parse_structured_reads_fitting_replies(text):
    assert parse_structured(text, YES_NO) == ({"answer": "yes"}, None)


@pytest.mark.parametrize(("text", "words"), [
    ('{"answer": "maybe"}', "$.answer: 'maybe' is not one of ['yes', 'no']"),
    ('{"reply": "yes"}', "'answer' is a required property"),
    ('{"answer": 1}', "$.answer"),
    ("Yes, it is.", "no JSON value"),
    ("", "no JSON value"),
    ('{"answer": "yes"', "no JSON value"),  # cut off by max_tokens
])
def test_parse_structured_reports_misfits_as_values(text, words):
    value, error = parse_structured(text, YES_NO)
    assert value is None and words in error


def test_parse_structured_on_arrays_and_nested_objects():
    ok = '[{"action": "stack a b", "score": 1, "preconditions": ["clear b"]}]'
    assert parse_structured(ok, HYPOTHESES)[0][0]["preconditions"] == ["clear b"]
    value, error = parse_structured('[{"action": "x", "score": 1, "extra": 2}]', HYPOTHESES)
    assert value is None and "$[0]" in error and "extra" in error
    assert "non-empty" in parse_structured("[]", HYPOTHESES)[1]
    assert parse_structured('"yes"', {"type": "string", "enum": ["yes", "no"]}) == ("yes", None)


def test_a_bad_schema_is_the_callers_mistake():
    with pytest.raises(ConfigError, match="not a valid JSON schema"):
        parse_structured("{}", {"type": "nonsense"})
    backend = ScriptedBackend(["never asked"])
    with pytest.raises(ConfigError, match="not a valid JSON schema"):
        LLM(backend).complete_structured(LLMRequest.of("q"), {"type": "nonsense"})
    with pytest.raises(ConfigError, match="needs a JSON schema"):
        LLM(backend).complete_structured(LLMRequest.of("q"))
    assert backend.requests == []


def test_strict_mode_only_for_schemas_it_accepts():
    assert not strict_compatible(YES_NO)  # additional properties allowed
    strict = {**YES_NO, "additionalProperties": False}
    assert strict_compatible(strict)
    assert not strict_compatible({"type": "array", "items": {**strict, "required": []}})


# --- remote APIs over real HTTP (loopback servers that record the requests) ---------------

def _chat_body(content: str) -> dict:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}}


@pytest.fixture
def http():
    """A loopback server answering POSTs from ``script`` (status, body) in turn
    and keeping each request's JSON body in ``seen``."""
    script: list[tuple[int, dict]] = []
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            seen.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            status, payload = script.pop(0)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script, seen
    httpd.shutdown()
    httpd.server_close()


def test_openai_backend_sends_a_json_schema_response_format(http):
    url, script, seen = http
    llm = LLM(create_backend("openai", model="m", base_url=url + "/v1", api_key="k"))
    strict = {**YES_NO, "additionalProperties": False}
    script.append((200, _chat_body('{"answer": "no"}')))
    out = llm.complete_structured(LLMRequest.of("Is fire cold?"), strict, name="verdict")
    assert out.value == {"answer": "no"} and out.response.extra["structured"] == "json_schema"
    assert seen[0]["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "verdict", "schema": strict, "strict": True}}
    # Not strict-compatible: strict off (strict mode would refuse it). A root that is
    # not an object travels under "value" and comes back unwrapped.
    script.append((200, _chat_body('{"value": [{"action": "a", "score": 0.5}]}')))
    out = llm.complete_structured(LLMRequest.of("Hypotheses?"), HYPOTHESES)
    assert out.value == [{"action": "a", "score": 0.5}]
    fmt = seen[1]["response_format"]["json_schema"]
    assert fmt["strict"] is False and fmt["schema"]["properties"]["value"] == HYPOTHESES
    script.append((200, _chat_body("plain")))
    llm.complete(LLMRequest.of("Hello"))
    assert "response_format" not in seen[2]


def test_openai_backend_falls_back_when_a_server_refuses_the_format(http):
    url, script, seen = http
    llm = LLM(create_backend("openai", model="m", base_url=url + "/v1", api_key="k"),
              retry=RetryPolicy(max_attempts=2, base_delay=0.01))
    refused = {"error": {"message": "Input should be 'text' or 'json_object'"}}
    script += [(422, refused), (200, _chat_body('{"answer": "yes"}'))]
    out = llm.complete_structured(LLMRequest.of("Is the sky blue?"), YES_NO)
    assert out.value == {"answer": "yes"} and out.response.extra["structured"] == "json_object"
    assert [b["response_format"]["type"] for b in seen] == ["json_schema", "json_object"]
    assert seen[1]["response_format"]["schema"] == YES_NO
    # The mode that worked is kept for this schema.
    script.append((200, _chat_body('{"answer": "no"}')))
    llm.complete_structured(LLMRequest.of("Is fire cold?"), YES_NO)
    assert seen[2]["response_format"]["type"] == "json_object"
    # A server that takes no format at all gets the schema in words, and prose is read.
    # (llama-cpp-python's server refuses a format with HTTP 500: not retried, stepped down.)
    script += [(500, {"error": {"message": "('body', 'response_format', 'type')"}}),
               (400, refused),
               (200, _chat_body('Sure!\n```json\n[{"action": "b", "score": 1}]\n```'))]
    out = llm.complete_structured(LLMRequest.of("Hypotheses?"), HYPOTHESES)
    assert out.value == [{"action": "b", "score": 1}]
    assert out.response.extra["structured"] == "prompt"
    assert "response_format" not in seen[-1] and len(seen) == 6
    assert seen[-1]["messages"][-1]["content"].startswith("Hypotheses?\n\nAnswer with JSON only")
    # Other server errors are still errors (retried as before), not a reason to step down.
    script += [(500, {"error": {"message": "out of memory"}})] * 2
    with pytest.raises(TransientBackendError):
        llm.complete_structured(LLMRequest.of("Other?"), {"type": "object"})
    assert [b["response_format"]["type"] for b in seen[6:]] == ["json_schema"] * 2


def test_anthropic_backend_forces_a_tool_with_the_schema(http):
    url, script, seen = http
    llm = LLM(create_backend("anthropic", model="claude-x", base_url=url, api_key="k"))
    script.append((200, {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [{"type": "tool_use", "id": "tu_1", "name": "verdict",
                     "input": {"answer": "yes"}}],
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 9, "output_tokens": 5}}))
    out = llm.complete_structured(LLMRequest.of("Is the sky blue?", system="Be brief."),
                                  YES_NO, name="verdict")
    assert out.value == {"answer": "yes"} and json.loads(out.text) == {"answer": "yes"}
    assert out.response.finish_reason == "stop" and out.response.total_tokens == 14
    body = seen[0]
    assert body["tools"][0]["name"] == "verdict" and body["tools"][0]["input_schema"] == YES_NO
    assert body["tool_choice"] == {"type": "tool", "name": "verdict"}
    assert body["temperature"] == 0.0 and body["system"] == "Be brief."


def test_a_request_without_a_cap_sends_none_to_openai_and_the_largest_to_anthropic(http):
    """max_tokens=None is "no cap but the context": omitted for OpenAI-compatible
    servers; Anthropic's API needs a number."""
    from veriplan.llm.backends.anthropic_backend import ANTHROPIC_MAX_TOKENS

    url, script, seen = http
    openai_llm = LLM(create_backend("openai", model="m", base_url=url + "/v1", api_key="k"))
    script.append((200, _chat_body("ok")))
    openai_llm.complete(LLMRequest.of("Hello", max_tokens=None))
    assert "max_tokens" not in seen[0]
    script.append((200, _chat_body("ok")))
    openai_llm.complete(LLMRequest.of("Hello again", max_tokens=7))
    assert seen[1]["max_tokens"] == 7
    anthropic_llm = LLM(create_backend("anthropic", model="claude-x", base_url=url,
                                       api_key="k"))
    script.append((200, {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}))
    anthropic_llm.complete(LLMRequest.of("Hello", max_tokens=None))
    assert seen[2]["max_tokens"] == ANTHROPIC_MAX_TOKENS
    assert LLMRequest.from_dict(LLMRequest.of("x", max_tokens=None).to_dict()).max_tokens is None


# --- the real embedded model ---------------------------------------------------------------

def test_llamacpp_grammar_keeps_the_real_model_inside_the_schema(smollm2, tmp_path):
    llm = LLM(create_backend("llamacpp", model_path=str(smollm2)),
              cache=ResponseCache(tmp_path / "c.sqlite"))
    request = LLMRequest.of("Is the sky blue? Answer yes or no.", max_tokens=24)
    out = llm.complete_structured(request, YES_NO)
    assert out.error is None, out.text
    assert out.value["answer"] in ("yes", "no")
    assert out.response.extra["structured"] == "schema" and out.response.completion_tokens > 0
    again = llm.complete_structured(request, YES_NO)
    assert again.response.cached and again.value == out.value


def test_openai_backend_against_llama_cpp_server_structured(llama_server, monkeypatch):
    # llama-cpp-python's server refuses the json_schema format (HTTP 422) and
    # enforces {"type": "json_object", "schema": ...} with a grammar instead.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    llm = LLM(create_backend("openai", model="smollm2", base_url=llama_server))
    out = llm.complete_structured(LLMRequest.of("Is the sky blue?", max_tokens=24), YES_NO)
    assert out.error is None, out.text
    assert out.value["answer"] in ("yes", "no")
    assert out.response.extra["structured"] == "json_object"
