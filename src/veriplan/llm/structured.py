"""Structured output: what a structured answer is, and the schema shapes the
remote APIs need.

A request carries a JSON schema (:attr:`LLMRequest.schema`); each backend
enforces it as far as it can, and the reply is always read again against the
schema (:func:`veriplan.llm.parsing.parse_structured`), since a server may
ignore it. A reply that does not fit is a value (``error``), never an
exception: the caller counts it and goes on.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from veriplan.llm.types import LLMResponse

WRAP_KEY = "value"


@dataclass(frozen=True)
class StructuredResponse:
    """The backend's ``response``, and what its text holds: ``value`` when it
    fits the schema (``error`` None), else ``error`` in words (``value`` None)."""

    response: LLMResponse
    value: Any = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def text(self) -> str:
        return self.response.text


def object_root(schema: Mapping) -> tuple[dict, bool]:
    """``(schema, False)`` when its root is an object; else an object schema
    with the original under ``"value"`` and True (tool inputs and OpenAI's
    ``json_schema`` format want an object at the root)."""
    if schema.get("type") == "object":
        return dict(schema), False
    return {"type": "object", "properties": {WRAP_KEY: dict(schema)}, "required": [WRAP_KEY],
            "additionalProperties": False}, True


def unwrap_text(text: str) -> str:
    """The JSON text of ``{"value": X}``'s X (for a schema :func:`object_root`
    wrapped); any other text as it is."""
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if isinstance(data, dict) and set(data) == {WRAP_KEY}:
        return json.dumps(data[WRAP_KEY], ensure_ascii=False)
    return text


def schema_instruction(schema: Mapping) -> str:
    """Words that ask for the schema, for servers that take no schema at all."""
    return ("Answer with JSON only: one value that fits this JSON schema.\n"
            + json.dumps(schema, ensure_ascii=False))


def strict_compatible(schema: Any) -> bool:
    """True when OpenAI's strict mode accepts the schema's objects: each one
    lists every property as required and forbids additional properties.
    (Strict mode rejects other schemas outright; without it a schema only
    guides the model, and the reply is checked here anyway.)"""
    if not isinstance(schema, Mapping):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required", ())) != set(props):
            return False
    subs: list = [*schema.get("properties", {}).values(),
                  *schema.get("$defs", {}).values(), *schema.get("definitions", {}).values()]
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        subs += schema.get(key, [])
    items = schema.get("items")
    subs += items if isinstance(items, list) else [items]
    return all(strict_compatible(s) for s in subs)
