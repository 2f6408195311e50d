"""Any OpenAI-compatible endpoint through the official ``openai`` SDK: OpenAI,
vLLM, Ollama, llama.cpp's server, LM Studio, OpenRouter."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping

from veriplan.errors import AuthenticationError, BackendUnavailableError, BadRequestError
from veriplan.llm.backends.sdk_errors import translated_errors
from veriplan.llm.structured import (
    object_root,
    schema_instruction,
    strict_compatible,
    unwrap_text,
)
from veriplan.llm.types import LLMRequest, LLMResponse

# How a schema reaches the server, most precise first. "json_schema" is OpenAI's
# format (also vLLM, Ollama, llama.cpp's C++ server); "json_object" with a
# "schema" key is what llama-cpp-python's server enforces (it refuses the
# first, with HTTP 500 and a validation message); "prompt" sends no format,
# asks for the schema in words at the end of the last message and relies on
# reading the reply.
SCHEMA_MODES = ("json_schema", "json_object", "prompt")


def response_format(request: LLMRequest, mode: str = "json_schema") -> dict | None:
    """The ``response_format`` that asks for ``request.schema`` in ``mode``.
    A root that is not an object goes under ``"value"`` (see
    :func:`~veriplan.llm.structured.object_root`); ``strict`` is on when
    the schema meets strict mode's rules, since strict mode refuses others."""
    if request.schema is None or mode == "prompt":
        return None
    if mode == "json_object":
        return {"type": "json_object", "schema": request.schema}
    schema, _ = object_root(request.schema)
    return {"type": "json_schema", "json_schema": {
        "name": request.schema_name, "schema": schema, "strict": strict_compatible(schema)}}


class _FormatRefused(Exception):
    """A server error that names ``response_format``: the format, not the server."""


class OpenAIBackend:
    """A request with a schema asks for it with ``response_format`` (see
    :data:`SCHEMA_MODES`): a server that refuses the format (HTTP 400 or 422,
    or any error whose message names ``response_format``) is asked again with
    the next mode, and the mode that worked is kept for later requests with the
    same schema. The reply is read against the schema afterwards in every mode."""

    name = "openai"

    @classmethod
    def model_name_for(cls, options: Mapping[str, object]) -> str:
        """The model these options select (part of unit ids), known without a client."""
        return str(options.get("model") or "")

    def __init__(self, model: str | None = None, *, base_url: str | None = None,
                 api_key: str | None = None, timeout: float = 600.0, **_: object) -> None:
        try:
            import openai
        except ImportError:
            raise BackendUnavailableError("the openai package is not installed: "
                                          "pip install openai") from None
        self._openai = openai
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if base_url is None:
                raise AuthenticationError("no API key: set OPENAI_API_KEY or pass --api-key "
                                          "(or --base-url for a local server)")
            key = "not-needed"  # local OpenAI-compatible servers ignore the key
        self.default_model = model or ""
        self._schema_modes: dict[str, str] = {}  # schema (JSON) -> the mode that worked
        # max_retries=0: retries are ours (veriplan.llm.retry), counted and logged once.
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout,
                                     max_retries=0)

    def complete(self, request: LLMRequest) -> LLMResponse:
        model = request.model or self.default_model
        if not model:
            raise BadRequestError("no model name: pass --model for the openai backend")
        start = time.perf_counter()
        schema_key = "" if request.schema is None else json.dumps(request.schema, sort_keys=True)
        mode = self._schema_modes.get(schema_key, SCHEMA_MODES[0]) if schema_key else ""
        while True:
            try:
                out = self._create(request, model, mode)
                break
            except (BadRequestError, _FormatRefused):
                if not mode or mode == SCHEMA_MODES[-1]:
                    raise
                mode = SCHEMA_MODES[SCHEMA_MODES.index(mode) + 1]
        if mode:
            self._schema_modes[schema_key] = mode
        choice = out.choices[0]
        usage = out.usage
        text = choice.message.content or ""
        if mode == "json_schema" and object_root(request.schema)[1]:
            text = unwrap_text(text)
        return LLMResponse(text, choice.finish_reason or "stop",
                           getattr(usage, "prompt_tokens", 0) or 0,
                           getattr(usage, "completion_tokens", 0) or 0,
                           time.perf_counter() - start, self.name, out.model or model,
                           extra={"structured": mode} if mode else {})

    def _create(self, request: LLMRequest, model: str, mode: str):
        fmt = response_format(request, mode) if mode else None
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        if mode == "prompt" and messages:
            messages[-1]["content"] += "\n\n" + schema_instruction(request.schema)
        with translated_errors(self._openai, str(self._client.base_url).rstrip("/"),
                               "OPENAI_API_KEY or --api-key"):
            try:
                return self._client.chat.completions.create(
                    model=model, messages=messages,
                    temperature=request.temperature,
                    **({} if request.max_tokens is None else {"max_tokens": request.max_tokens}),
                    stop=list(request.stop) or None,
                    seed=None if request.seed is None else request.seed + request.sample_index,
                    **({"response_format": fmt} if fmt is not None else {}))
            except self._openai.APIStatusError as exc:
                # llama-cpp-python's server answers a format it does not know with
                # HTTP 500; that is a refusal of the format, not worth retrying.
                if fmt is not None and "response_format" in str(exc):
                    raise _FormatRefused(str(exc)) from exc
                raise
