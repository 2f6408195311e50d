"""Backends by name: ``name -> "module:Class"``, imported only when used, and
extensible by the ``veriplan.backends`` entry-point group."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from veriplan.errors import BackendError

BACKENDS: dict[str, str] = {
    "llamacpp": "veriplan.llm.backends.llamacpp:LlamaCppBackend",
    "openai": "veriplan.llm.backends.openai_backend:OpenAIBackend",
    "anthropic": "veriplan.llm.backends.anthropic_backend:AnthropicBackend",
    "replay": "veriplan.llm.backends.replay:ReplayBackend",
    "scripted": "veriplan.llm.backends.scripted:ScriptedBackend",
}
DEFAULT_BACKEND = "llamacpp"


def available() -> dict[str, str]:
    """Built-in backends plus those other packages register as entry points."""
    out = dict(BACKENDS)
    for ep in entry_points(group="veriplan.backends"):
        out.setdefault(ep.name, ep.value)
    return out


def backend_class(name: str) -> type:
    table = available()
    try:
        target = table[name]
    except KeyError:
        raise BackendError(f"unknown backend {name!r}: use one of "
                           f"{', '.join(sorted(table))}") from None
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def create_backend(name: str = DEFAULT_BACKEND, **options: object):
    """Instantiate a backend; options a backend does not take are ignored."""
    return backend_class(name)(**options)
