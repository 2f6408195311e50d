"""The embedded default: llama.cpp in-process through ``llama-cpp-python``."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from veriplan.errors import BackendError, BackendUnavailableError, BadRequestError
from veriplan.llm.models import DEFAULT_MODEL, Progress, resolve_model
from veriplan.llm.types import LLMRequest, LLMResponse

INSTALL_HINT = (
    'pip install llama-cpp-python with CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON '
    '-DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" (the Makefile does this; the default '
    "native build can crash on the first token)")


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, else the count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class LlamaCppBackend:
    """A GGUF model loaded once, answering chat requests in-process.

    ``model`` is an embedded model name (see ``veriplan model list``) or a path
    to any GGUF file. Calls are serialized: one llama.cpp context is not
    thread-safe, and on a 2-core machine parallel decoding gains nothing.
    """

    name = "llamacpp"
    serial = True  # one context: LLM.complete_many sends requests in order

    @classmethod
    def model_name_for(cls, options: Mapping[str, object]) -> str:
        """The model these options select, known without loading it: ``model``,
        else the stem of ``model_path``, else the default embedded model."""
        if options.get("model"):
            return str(options["model"])
        path = options.get("model_path")
        return Path(str(path)).stem if path else DEFAULT_MODEL

    def __init__(self, model: str | None = None, *, model_path: str | None = None,
                 n_ctx: int = 16384, n_threads: int | None = None,
                 progress: Progress | None = None, **_: object) -> None:
        try:
            import llama_cpp
        except ImportError:
            raise BackendUnavailableError(f"llama-cpp-python is not installed: {INSTALL_HINT}"
                                          ) from None
        path: Path = resolve_model(model_path or model or DEFAULT_MODEL, progress=progress)
        self.default_model = (model or DEFAULT_MODEL) if not model_path else Path(model_path).stem
        self._lock = threading.Lock()
        self._grammars: dict[str, tuple[object, str]] = {}
        # llama-cpp-python's own default decodes on half the CPUs (it assumes two
        # hardware threads per core); on a 2-CPU machine that is one thread, and
        # decoding is 1.5x faster on both (benchmarks/llamacpp_threads.py).
        n_threads = n_threads or usable_cpus()
        try:
            self._llm = llama_cpp.Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                                        verbose=False, seed=0)
        except (ValueError, RuntimeError) as exc:
            raise BackendError(f"llama.cpp could not load {path}: {exc}") from None

    def complete(self, request: LLMRequest) -> LLMResponse:
        start = time.perf_counter()
        msgs = [{"role": m.role, "content": m.content} for m in request.messages]
        seed = None if request.seed is None else request.seed + request.sample_index
        grammar, enforced = (None, "") if request.schema is None else self._grammar(request.schema)
        with self._lock:
            try:
                out = self._llm.create_chat_completion(
                    messages=msgs, temperature=request.temperature,
                    max_tokens=request.max_tokens, stop=list(request.stop) or None, seed=seed,
                    grammar=grammar)
            except ValueError as exc:  # e.g. prompt longer than the context
                raise BadRequestError(f"llama.cpp rejected the request: {exc}") from None
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return LLMResponse(choice["message"].get("content") or "",
                           choice.get("finish_reason") or "stop",
                           usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0),
                           time.perf_counter() - start, self.name,
                           request.model or self.default_model,
                           extra={"structured": enforced} if enforced else {})

    def _grammar(self, schema: Mapping) -> tuple[object, str]:
        """The grammar for ``schema`` (made once per schema) and what it
        enforces: ``"schema"``, or ``"json"`` when the converter could not
        express the schema and any JSON value is allowed instead."""
        key = json.dumps(schema, sort_keys=True, ensure_ascii=False)
        found = self._grammars.get(key)
        if found is None:
            from llama_cpp import llama_grammar as grammars

            try:
                found = (grammars.LlamaGrammar.from_json_schema(
                    json.dumps(schema, ensure_ascii=False), verbose=False), "schema")
            except Exception:  # the converter raises plain exceptions on what it lacks
                found = (grammars.LlamaGrammar.from_string(grammars.JSON_GBNF, verbose=False),
                         "json")
            self._grammars[key] = found
        return found
