"""Any OpenAI-compatible endpoint through the official ``openai`` SDK: OpenAI,
vLLM, Ollama, llama.cpp's server, LM Studio, OpenRouter."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping

from veriplan.errors import AuthenticationError, BackendUnavailableError, BadRequestError
from veriplan.llm.backends.sdk_errors import translated_errors
from veriplan.llm.types import LLMRequest, LLMResponse


class OpenAIBackend:
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
        # max_retries=0: retries are ours (veriplan.llm.retry), counted and logged once.
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout,
                                     max_retries=0)

    def complete(self, request: LLMRequest) -> LLMResponse:
        model = request.model or self.default_model
        if not model:
            raise BadRequestError("no model name: pass --model for the openai backend")
        start = time.perf_counter()
        with translated_errors(self._openai, str(self._client.base_url),
                               "OPENAI_API_KEY or --api-key"):
            out = self._client.chat.completions.create(
                model=model, messages=[{"role": m.role, "content": m.content}
                                       for m in request.messages],
                temperature=request.temperature, max_tokens=request.max_tokens,
                stop=list(request.stop) or None,
                seed=None if request.seed is None else request.seed + request.sample_index)
        choice = out.choices[0]
        usage = out.usage
        return LLMResponse(choice.message.content or "", choice.finish_reason or "stop",
                           getattr(usage, "prompt_tokens", 0) or 0,
                           getattr(usage, "completion_tokens", 0) or 0,
                           time.perf_counter() - start, self.name, out.model or model)
