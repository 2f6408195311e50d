"""An address where nothing answers fails at once, with the address and the fix;
a server that is there but drops the connection or times out is still retried.
Over real sockets on 127.0.0.1 with the real SDKs."""

from __future__ import annotations

import functools
import socket
import threading

import pytest

from veriplan.errors import EndpointUnreachableError, TransientBackendError
from veriplan.llm import LLM, LLMRequest, RetryPolicy, create_backend
from veriplan.llm.backends.sdk_errors import unreachable_reason
from veriplan.llm.retry import with_retries


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Sleeps:
    """A stand-in for ``time.sleep`` that counts the back-offs asked for."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def counting_llm(backend, monkeypatch) -> tuple[LLM, Sleeps, list[int]]:
    """A client with a generous retry policy, its sleeps counted and its
    backend's attempts counted."""
    sleeps = Sleeps()
    monkeypatch.setattr("veriplan.llm.client.with_retries",
                        functools.partial(with_retries, sleep=sleeps))
    attempts: list[int] = []
    complete = backend.complete

    def counted(request):
        attempts.append(1)
        return complete(request)

    monkeypatch.setattr(backend, "complete", counted)
    return LLM(backend, retry=RetryPolicy(max_attempts=6, base_delay=0.01)), sleeps, attempts


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_refused_connection_fails_at_once_naming_the_url(name, monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}/v1"
    backend = create_backend(name, model="m", base_url=url, api_key="k")
    llm, sleeps, attempts = counting_llm(backend, monkeypatch)
    with pytest.raises(EndpointUnreachableError) as info:
        llm.complete(LLMRequest.of("q"))
    assert len(attempts) == 1 and sleeps.calls == []
    assert info.value.retryable is False and info.value.attempts == 1
    assert str(info.value) == f"nothing listens at {url}: start the server or fix --base-url"
    assert info.value.url == url


@pytest.fixture
def dropping_server():
    """A server on 127.0.0.1 that accepts each connection and closes it
    without answering (a server that is there, but failing)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()
    accepted: list[int] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            accepted.append(1)
            conn.recv(65536)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/v1", accepted
    stop.set()
    thread.join()
    srv.close()


def test_a_connection_dropped_mid_request_is_still_retried(dropping_server, monkeypatch):
    url, accepted = dropping_server
    backend = create_backend("openai", model="m", base_url=url, api_key="k")
    llm, sleeps, attempts = counting_llm(backend, monkeypatch)
    llm.retry = RetryPolicy(max_attempts=3, base_delay=0.01)
    with pytest.raises(TransientBackendError) as info:
        llm.complete(LLMRequest.of("q"))
    assert len(attempts) == 3 and len(sleeps.calls) == 2 and len(accepted) == 3
    assert not isinstance(info.value, EndpointUnreachableError)


def _chain(*excs: BaseException) -> BaseException:
    """``excs[0]`` raised from ``excs[1]``, raised from ``excs[2]``, ..."""
    for outer, inner in zip(excs, excs[1:], strict=False):
        outer.__cause__ = inner
    return excs[0]


class ConnectError(Exception):
    """Named as the HTTP libraries name a failure to connect."""


class ConnectTimeout(Exception):
    """Named as the HTTP libraries name a connect that timed out."""


def test_what_counts_as_unreachable():
    url = "http://h.example/v1"
    dns = _chain(ConnectError("x"), socket.gaierror(-2, "Name or service not known"))
    assert unreachable_reason(dns, url) == (
        "the host name of http://h.example/v1 does not resolve (Name or service not known): "
        "fix the host in --base-url or check the network's DNS")
    import errno

    net = _chain(ConnectError("x"), OSError(errno.ENETUNREACH, "Network is unreachable"))
    assert "cannot be reached (Network is unreachable)" in unreachable_reason(net, url)
    # a slow server is there: a timeout is never "unreachable", whatever it wraps
    slow = _chain(ConnectTimeout("x"), ConnectionRefusedError(111, "refused"))
    assert unreachable_reason(slow, url) is None
    assert unreachable_reason(_chain(ConnectError("x"), ConnectionResetError()), url) is None
    assert unreachable_reason(ValueError("x"), url) is None
