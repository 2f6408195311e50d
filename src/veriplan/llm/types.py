"""Typed requests and responses shared by every backend."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import Literal

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True)
class LLMRequest:
    """One completion request. ``sample_index`` tells apart repeated samples of
    the same prompt (it is part of the cache key and varies the seed)."""

    messages: tuple[Message, ...]
    model: str = ""
    temperature: float = 0.0
    max_tokens: int = 512
    stop: tuple[str, ...] = ()
    seed: int | None = 0
    sample_index: int = 0

    @classmethod
    def of(cls, prompt: str, *, system: str | None = None, **kw) -> LLMRequest:
        msgs = ((Message("system", system),) if system else ()) + (Message("user", prompt),)
        return cls(msgs, **kw)

    def with_model(self, model: str) -> LLMRequest:
        return replace(self, model=model)

    def canonical(self, backend: str) -> str:
        """Canonical JSON of what determines the answer: never keys or base URLs."""
        return json.dumps({
            "backend": backend, "model": self.model,
            "messages": [[m.role, m.content] for m in self.messages],
            "temperature": self.temperature, "max_tokens": self.max_tokens,
            "stop": list(self.stop), "seed": self.seed, "sample_index": self.sample_index,
        }, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def key(self, backend: str) -> str:
        return hashlib.sha256(self.canonical(backend).encode()).hexdigest()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["messages"] = [{"role": m.role, "content": m.content} for m in self.messages]
        d["stop"] = list(self.stop)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> LLMRequest:
        return cls(tuple(Message(m["role"], m["content"]) for m in d["messages"]),
                   d.get("model", ""), d.get("temperature", 0.0), d.get("max_tokens", 512),
                   tuple(d.get("stop", ())), d.get("seed", 0), d.get("sample_index", 0))


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
