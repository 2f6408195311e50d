"""A sandbox target for a bare snippet: ``exec`` it and return its ``result``
variable (JSON). For trying model-written code by hand and for the tests."""

from __future__ import annotations

from typing import Any


def run(payload: dict) -> Any:
    namespace: dict[str, Any] = {"__name__": "snippet"}
    exec(compile(payload["code"], "<snippet>", "exec"), namespace)
    return namespace.get("result")
