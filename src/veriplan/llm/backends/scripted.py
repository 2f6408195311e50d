"""A test double shipped in the library: answers from a queue or a function."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping

from veriplan.errors import BackendError
from veriplan.llm.types import LLMRequest, LLMResponse


class ScriptedBackend:
    """Answers with queued texts (``enqueue``) or a function of the request.

    ``delay`` seconds are slept per call (to stand in for a slow server in
    benchmarks); queued items may be exceptions, raised in turn. Every request
    is kept in ``requests``, with its ``schema`` when it asks for structured
    output, so a function can answer to the schema it is given.
    """

    name = "scripted"

    @classmethod
    def model_name_for(cls, options: Mapping[str, object]) -> str:
        """The ``model`` option, else "scripted" (as the backend answers)."""
        return str(options.get("model") or "scripted")

    def __init__(self, responses: Iterable[str | BaseException] = (), *,
                 fn: Callable[[LLMRequest], str] | None = None, delay: float = 0.0,
                 model: str = "scripted", script: str | None = None, **_: object) -> None:
        """``script`` names a function ``"module:function"`` of the request, so a
        scripted backend can be built from a spec (command line, sweep file, Ray)."""
        self._queue: deque[str | BaseException] = deque(responses)
        if script is not None:
            fn = _load(script)
        self._fn = fn
        self._lock = threading.Lock()
        self.delay = delay
        self.default_model = model
        self.requests: list[LLMRequest] = []

    def enqueue(self, responses: Iterable[str | BaseException]) -> ScriptedBackend:
        with self._lock:
            self._queue.extend(responses)
        return self

    def complete(self, request: LLMRequest) -> LLMResponse:
        start = time.perf_counter()
        if self.delay:
            time.sleep(self.delay)
        with self._lock:
            self.requests.append(request)
            item = self._queue.popleft() if self._queue else None
        if item is None:
            if self._fn is None:
                raise BackendError("scripted backend has no answer left: enqueue more "
                                   f"(request {len(self.requests)})")
            item = self._fn(request)
        if isinstance(item, BaseException):
            raise item
        prompt = sum(len(m.content.split()) for m in request.messages)
        return LLMResponse(item, "stop", prompt, len(item.split()),
                           time.perf_counter() - start, self.name,
                           request.model or self.default_model)


def _load(target: str) -> Callable[[LLMRequest], str]:
    import importlib

    module, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError):
        raise BackendError(f"scripted backend: cannot import {target!r} (expected "
                           "'module:function')") from None
