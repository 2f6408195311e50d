"""How the openai backend maps HTTP failures to typed errors, over real HTTP with
the real SDK. A real server cannot be made to answer 429 or 401 on demand, so a
tiny loopback server scripts those status codes here."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from veriplan.errors import AuthenticationError, BadRequestError, RateLimitError
from veriplan.llm import LLM, LLMRequest, RetryPolicy, create_backend

OK_BODY = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
           "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "fine"}}],
           "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}}


@pytest.fixture
def server():
    script: list[tuple[int, dict, dict]] = []
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"auth": self.headers.get("Authorization"), "body": body})
            status, headers, payload = script.pop(0)
            data = json.dumps(payload).encode()
            self.send_response(status)
            for k, v in {**headers, "Content-Type": "application/json",
                         "Content-Length": str(len(data))}.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script, seen
    httpd.shutdown()
    httpd.server_close()


def test_rate_limit_is_retried_after_retry_after(server, monkeypatch):
    url, script, seen = server
    script += [(429, {"Retry-After": "0.2"}, {"error": {"message": "slow"}}), (200, {}, OK_BODY)]
    llm = LLM(create_backend("openai", model="m", base_url=url, api_key="sk-test-secret"),
              retry=RetryPolicy(max_attempts=3, base_delay=0.01))
    r = llm.complete(LLMRequest.of("q"))
    assert r.text == "fine" and r.attempts == 2
    assert seen[0]["auth"] == "Bearer sk-test-secret"
    script.append((429, {"Retry-After": "0"}, {"error": {"message": "slow"}}))
    with pytest.raises(RateLimitError) as info:
        LLM(llm.backend, retry=RetryPolicy(max_attempts=1)).complete(LLMRequest.of("q2"))
    assert info.value.retry_after == 0.0
    assert "sk-test-secret" not in str(info.value)


def test_auth_and_bad_request_are_not_retried(server):
    url, script, seen = server
    script += [(401, {}, {"error": {"message": "bad key"}})]
    llm = LLM(create_backend("openai", model="m", base_url=url, api_key="k"),
              retry=RetryPolicy(max_attempts=5, base_delay=0.01))
    with pytest.raises(AuthenticationError, match="OPENAI_API_KEY or --api-key"):
        llm.complete(LLMRequest.of("q"))
    script += [(400, {}, {"error": {"message": "context too long"}})]
    with pytest.raises(BadRequestError):
        llm.complete(LLMRequest.of("q"))
    assert len(seen) == 2
