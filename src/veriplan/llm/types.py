"""Typed requests and responses shared by every backend."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Literal

from veriplan.errors import ConfigError

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str


_SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@dataclass(frozen=True)
class LLMRequest:
    """One completion request. ``sample_index`` tells apart repeated samples of
    the same prompt (it is part of the cache key and varies the seed).

    ``schema`` (a JSON schema) asks for structured output: each backend
    enforces it as far as it can (a grammar in llama.cpp, ``response_format``
    on OpenAI-compatible servers, a forced tool on Anthropic) and
    :func:`veriplan.llm.parsing.parse_structured` reads the reply against it.
    ``schema_name`` names it for the APIs that want a name (letters, digits,
    ``_`` and ``-``). Both are part of the cache key only when a schema is set,
    so requests without one keep the keys they always had.
    """

    messages: tuple[Message, ...]
    model: str = ""
    temperature: float = 0.0
    # None: no cap but the model's context (Anthropic's API needs a number: 8192 there)
    max_tokens: int | None = 512
    stop: tuple[str, ...] = ()
    seed: int | None = 0
    sample_index: int = 0
    schema: Mapping | None = field(default=None, hash=False)
    schema_name: str = "answer"

    def __post_init__(self) -> None:
        if self.schema is None:
            return
        if not isinstance(self.schema, Mapping):
            raise ConfigError(f"a request's schema must be a JSON schema object (a dict), "
                              f"not {type(self.schema).__name__}")
        if not _SCHEMA_NAME.fullmatch(self.schema_name):
            raise ConfigError(f"schema name {self.schema_name!r} must be 1-64 letters, "
                              "digits, '_' or '-'")
        try:  # a private, plain-JSON copy: later changes to the caller's dict change nothing
            plain = json.loads(json.dumps(self.schema, ensure_ascii=False))
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"a request's schema must be plain JSON: {exc}") from None
        object.__setattr__(self, "schema", plain)

    @classmethod
    def of(cls, prompt: str, *, system: str | None = None, **kw) -> LLMRequest:
        msgs = ((Message("system", system),) if system else ()) + (Message("user", prompt),)
        return cls(msgs, **kw)

    def with_model(self, model: str) -> LLMRequest:
        return replace(self, model=model)

    def with_schema(self, schema: Mapping | None, name: str | None = None) -> LLMRequest:
        """This request asking for output that fits ``schema`` (None: plain text)."""
        return replace(self, schema=schema, schema_name=name or self.schema_name)

    def canonical(self, backend: str) -> str:
        """Canonical JSON of what determines the answer: never keys or base URLs.
        The schema and its name enter only when there is a schema."""
        fields = {
            "backend": backend, "model": self.model,
            "messages": [[m.role, m.content] for m in self.messages],
            "temperature": self.temperature, "max_tokens": self.max_tokens,
            "stop": list(self.stop), "seed": self.seed, "sample_index": self.sample_index,
        }
        if self.schema is not None:
            fields["schema"] = self.schema
            fields["schema_name"] = self.schema_name
        return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def key(self, backend: str) -> str:
        return hashlib.sha256(self.canonical(backend).encode()).hexdigest()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["messages"] = [{"role": m.role, "content": m.content} for m in self.messages]
        d["stop"] = list(self.stop)
        if self.schema is None:  # records of plain requests look as they always did
            del d["schema"], d["schema_name"]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> LLMRequest:
        return cls(tuple(Message(m["role"], m["content"]) for m in d["messages"]),
                   d.get("model", ""), d.get("temperature", 0.0), d.get("max_tokens", 512),
                   tuple(d.get("stop", ())), d.get("seed", 0), d.get("sample_index", 0),
                   d.get("schema"), d.get("schema_name", "answer"))


@dataclass(frozen=True)
class LLMResponse:
    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0  # seconds spent by the backend (0 on a cache hit)
    backend: str = ""
    model: str = ""
    cached: bool = False
    attempts: int = 1
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> LLMResponse:
        known = {k: d[k] for k in ("text", "finish_reason", "prompt_tokens",
                                   "completion_tokens", "latency", "backend", "model")
                 if k in d}
        return cls(**known)
