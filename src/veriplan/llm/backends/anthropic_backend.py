"""Anthropic's models through the official ``anthropic`` SDK."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping

from veriplan.errors import AuthenticationError, BackendUnavailableError, BadRequestError
from veriplan.llm.backends.sdk_errors import translated_errors
from veriplan.llm.structured import WRAP_KEY, object_root
from veriplan.llm.types import LLMRequest, LLMResponse


def schema_tool(request: LLMRequest) -> tuple[dict, dict]:
    """``(tool, tool_choice)`` forcing the model to answer through one tool whose
    ``input_schema`` is the request's schema (under ``"value"`` when its root
    is not an object: tool inputs are objects)."""
    schema, _ = object_root(request.schema or {})
    tool = {"name": request.schema_name, "input_schema": schema,
            "description": "Give your answer as this tool's input."}
    return tool, {"type": "tool", "name": request.schema_name}


# Anthropic's API requires a cap on every answer; a request without one gets this.
ANTHROPIC_MAX_TOKENS = 8192


class AnthropicBackend:
    """A request with a schema gets one tool with that ``input_schema`` and a
    ``tool_choice`` that forces it; the tool input is returned as JSON text."""

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
        # The SDK dropped ``temperature`` from create()'s arguments in 1.0; the API
        # still takes it, and extra_body sends it with any SDK version.
        kwargs: dict = {"model": model, "messages": msgs, "max_tokens": (
            ANTHROPIC_MAX_TOKENS if request.max_tokens is None else request.max_tokens),
                        "extra_body": {"temperature": request.temperature}}
        if system:
            kwargs["system"] = system
        if request.stop:
            kwargs["stop_sequences"] = list(request.stop)
        if request.schema is not None:
            tool, choice = schema_tool(request)
            kwargs["tools"], kwargs["tool_choice"] = [tool], choice
        start = time.perf_counter()
        with translated_errors(self._anthropic, "Anthropic", "ANTHROPIC_API_KEY or --api-key",
                               url=str(self._client.base_url).rstrip("/")):
            out = self._client.messages.create(**kwargs)
        stop = out.stop_reason or "stop"
        text = "".join(getattr(b, "text", "") for b in out.content)
        if request.schema is not None:
            used = next((b for b in out.content if getattr(b, "type", "") == "tool_use"
                         and b.name == request.schema_name), None)
            if used is not None:
                value = used.input
                if (object_root(request.schema)[1] and isinstance(value, dict)
                        and WRAP_KEY in value):
                    value = value[WRAP_KEY]
                text = json.dumps(value, ensure_ascii=False)
                stop = "stop" if stop == "tool_use" else stop
        return LLMResponse(text, stop, out.usage.input_tokens,
                           out.usage.output_tokens, time.perf_counter() - start, self.name,
                           out.model or model,
                           extra={"structured": "tool"} if request.schema is not None else {})
