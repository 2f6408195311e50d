"""The one method every backend implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from veriplan.llm.types import LLMRequest, LLMResponse


@runtime_checkable
class Backend(Protocol):
    """``complete`` answers one request or raises a
    :class:`~veriplan.errors.BackendError`; ``name`` is the registry name and
    ``default_model`` fills requests that name no model."""

    name: str
    default_model: str

    def complete(self, request: LLMRequest) -> LLMResponse: ...
