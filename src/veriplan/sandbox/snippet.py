"""A sandbox target for a bare snippet: ``exec`` it and return its ``result``
variable (JSON). For trying model-written code by hand and for the tests."""

from __future__ import annotations


def run(payload: dict[str, str]) -> object:
    """What the snippet left in ``result`` (None without one); the child sends it
    back if it is JSON."""
    namespace: dict[str, object] = {"__name__": "snippet"}
    exec(compile(payload["code"], "<snippet>", "exec"), namespace)
    return namespace.get("result")
