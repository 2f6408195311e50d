"""Anthropic's models through the official ``anthropic`` SDK."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from veriplan.errors import AuthenticationError, BackendUnavailableError, BadRequestError
from veriplan.llm.backends.sdk_errors import translated_errors
from veriplan.llm.types import LLMRequest, LLMResponse


class AnthropicBackend:
    name = "anthropic"

    @classmethod
    def model_name_for(cls, options: Mapping[str, object]) -> str:
        """The model these options select (part of unit ids), known without a client."""
        return str(options.get("model") or "")

    def __init__(self, model: str | None = None, *, api_key: str | None = None,
                 base_url: str | None = None, timeout: float = 600.0, **_: object) -> None:
        try:
            import anthropic
        except ImportError:
            raise BackendUnavailableError("the anthropic package is not installed: "
                                          "pip install anthropic") from None
        self._anthropic = anthropic
        key = api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise AuthenticationError("no API key: set ANTHROPIC_API_KEY or pass --api-key")
        self.default_model = model or ""
        self._client = anthropic.Anthropic(api_key=key, base_url=base_url, timeout=timeout,
                                           max_retries=0)

    def complete(self, request: LLMRequest) -> LLMResponse:
        model = request.model or self.default_model
        if not model:
            raise BadRequestError("no model name: pass --model for the anthropic backend")
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        msgs = [{"role": m.role, "content": m.content} for m in request.messages
                if m.role != "system"]
        kwargs: dict = {"model": model, "messages": msgs, "max_tokens": request.max_tokens,
                        "temperature": request.temperature}
        if system:
            kwargs["system"] = system
        if request.stop:
            kwargs["stop_sequences"] = list(request.stop)
        start = time.perf_counter()
        with translated_errors(self._anthropic, "Anthropic", "ANTHROPIC_API_KEY or --api-key"):
            out = self._client.messages.create(**kwargs)
        text = "".join(getattr(b, "text", "") for b in out.content)
        return LLMResponse(text, out.stop_reason or "stop", out.usage.input_tokens,
                           out.usage.output_tokens, time.perf_counter() - start, self.name,
                           out.model or model)
