"""The client every method uses: a backend wrapped with the response cache,
retries, a bound on requests in flight, usage accounting and (optionally) a
cassette recorder."""

from __future__ import annotations

import contextvars
import copy
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from veriplan.errors import ConfigError
from veriplan.llm.backends.replay import CassetteRecorder
from veriplan.llm.cache import ResponseCache
from veriplan.llm.parsing import check_schema, parse_structured
from veriplan.llm.retry import RetryPolicy, with_retries
from veriplan.llm.structured import StructuredResponse
from veriplan.llm.types import LLMRequest, LLMResponse
from veriplan.llm.usage import CallRecord, PriceTable, UsageLedger


class LLM:
    """``complete(request)`` through the cache, retries and accounting.

    ``max_in_flight`` bounds concurrent backend calls across threads, so
    :meth:`complete_many` keeps a remote server busy without flooding it.
    """

    def __init__(self, backend, *, cache: ResponseCache | None = None,
                 retry: RetryPolicy | None = None, max_in_flight: int = 8,
                 prices: PriceTable | None = None,
                 recorder: CassetteRecorder | None = None) -> None:
        self.backend = backend
        self.cache = cache
        self.retry = retry or RetryPolicy()
        self.max_in_flight = max_in_flight
        self._slots = threading.BoundedSemaphore(max_in_flight)
        self.prices = prices or PriceTable()
        self.usage = UsageLedger()
        self.recorder = recorder

    def session(self) -> LLM:
        """A view for one run: the same backend, cache, retry policy, limit on
        requests in flight, prices and recorder, with its own usage ledger
        (whose calls also count in this client's ledger). Runs that share a
        client concurrently each read exact usage from their own session."""
        view = copy.copy(self)
        view.usage = UsageLedger(parent=self.usage)
        return view

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def model(self) -> str:
        return self.backend.default_model

    def complete(self, request: LLMRequest) -> LLMResponse:
        if not request.model:
            request = request.with_model(self.backend.default_model)
        name = self.backend.name
        if self.cache is not None:
            hit = self.cache.get(name, request)
            if hit is not None:
                resp = replace(hit, cached=True, latency=0.0, backend=name)
                self._account(resp)
                return resp
        with self._slots:
            resp, attempts = with_retries(lambda: self.backend.complete(request), self.retry)
        resp = replace(resp, attempts=attempts)
        if self.cache is not None:
            self.cache.put(name, request, resp)
        if self.recorder is not None:
            self.recorder.record(name, request, resp)
        self._account(resp)
        return resp

    def complete_structured(self, request: LLMRequest, schema: Mapping | None = None, *,
                            name: str | None = None) -> StructuredResponse:
        """``complete`` asking for output that fits ``schema`` (or the schema the
        request already carries; ``name`` names it for the APIs), and the reply
        read against it. A reply that does not fit is not an error: the result's
        ``error`` says why and ``value`` is None, for the caller to count. Cache,
        retries, cassettes and usage are those of :meth:`complete` (a misfit is
        cached like any answer: ask another ``sample_index`` for a new one).
        An invalid schema raises :class:`~veriplan.errors.ConfigError` before
        any call."""
        if schema is not None:
            request = request.with_schema(schema, name)
        elif name is not None:
            request = request.with_schema(request.schema, name)
        if request.schema is None:
            raise ConfigError("complete_structured needs a JSON schema: pass schema= or "
                              "build the request with schema=")
        check_schema(request.schema)
        resp = self.complete(request)
        value, error = parse_structured(resp.text, request.schema)
        return StructuredResponse(resp, value, error)

    def complete_many(self, requests: Sequence[LLMRequest]) -> list[LLMResponse]:
        """Answers in request order; up to ``max_in_flight`` at once. A backend
        that answers one call at a time (``serial``: llama.cpp in-process) gets
        them one by one in order, so consecutive requests reuse their shared
        prompt prefix (threads would reach it in any order and gain nothing)."""
        if len(requests) <= 1 or getattr(self.backend, "serial", False):
            return [self.complete(r) for r in requests]
        with ThreadPoolExecutor(max_workers=self.max_in_flight) as pool:
            # each call in a copy of the caller's context (a task binding holds there too)
            futures = [pool.submit(contextvars.copy_context().run, self.complete, r)
                       for r in requests]
            return [f.result() for f in futures]

    def _account(self, resp: LLMResponse) -> None:
        self.usage.add(CallRecord(resp.backend, resp.model, resp.prompt_tokens,
                                  resp.completion_tokens, resp.latency, self.prices.cost(resp),
                                  resp.cached, resp.attempts))
