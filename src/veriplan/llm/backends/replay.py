"""Answers recorded in a cassette: JSONL lines ``{"key", "request", "response"}``."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path

from veriplan.errors import BackendError, ReplayMissError
from veriplan.llm.types import LLMRequest, LLMResponse


class ReplayBackend:
    """Replays a cassette written by :class:`CassetteRecorder` (or by hand).

    Keys are computed with the backend name that recorded them
    (``recorded_backend``), so a cassette recorded from ``openai`` replays here.
    """

    name = "replay"

    @classmethod
    def model_name_for(cls, options: Mapping[str, object]) -> str:
        """The model these options select (part of unit ids), known without a client."""
        return str(options.get("model") or "")

    def __init__(self, cassette: str | Path | None = None, *, model: str = "",
                 **_: object) -> None:
        if cassette is None:
            raise BackendError("the replay backend needs a cassette: pass --cassette FILE")
        self.path = Path(cassette)
        self.default_model = model
        self._by_key: dict[str, dict] = {}
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise BackendError(f"cannot read cassette {self.path}: {exc.strerror}") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                self._by_key[rec["key"]] = rec
            except (json.JSONDecodeError, KeyError, TypeError):
                raise BackendError(f"{self.path}:{n}: not a cassette record "
                                   "(expected a JSON object with 'key')") from None
        self.recorded_backend = next(
            (r.get("backend", "") for r in self._by_key.values()), "")

    def complete(self, request: LLMRequest) -> LLMResponse:
        rec = self._by_key.get(request.key(self.recorded_backend))
        if rec is None:
            first = request.messages[-1].content if request.messages else ""
            raise ReplayMissError(
                f"cassette {self.path} has no answer for this request (model "
                f"{request.model!r}, sample {request.sample_index}, last message "
                f"{first[:80]!r}...); record it first")
        resp = LLMResponse.from_dict(rec["response"])
        return LLMResponse(resp.text, resp.finish_reason, resp.prompt_tokens,
                           resp.completion_tokens, 0.0, self.name, resp.model)


class CassetteRecorder:
    """Appends each (request, response) of a backend to a cassette file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def record(self, backend: str, request: LLMRequest, response: LLMResponse) -> None:
        rec = {"key": request.key(backend), "backend": backend,
               "request": request.to_dict(), "response": response.to_dict()}
        with self._lock, open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
