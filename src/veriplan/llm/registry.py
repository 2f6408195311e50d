"""Backends by name: ``name -> "module:Class"``, imported only when used, and
extensible by the ``veriplan.backends`` entry-point group (the package's own
plug-ins there, :data:`veriplan.registry.PLUGINS`, are the methods' controlled
stand-in models: :mod:`veriplan.llm.controlled`)."""

from __future__ import annotations

from collections.abc import Mapping

from veriplan.errors import BackendError, ConfigError
from veriplan.registry import Registry


class UnknownBackendError(ConfigError, BackendError):
    """A backend name that is not registered (names the choices)."""


BACKENDS: Registry[type] = Registry("backend", {
    "llamacpp": "veriplan.llm.backends.llamacpp:LlamaCppBackend",
    "openai": "veriplan.llm.backends.openai_backend:OpenAIBackend",
    "anthropic": "veriplan.llm.backends.anthropic_backend:AnthropicBackend",
    "replay": "veriplan.llm.backends.replay:ReplayBackend",
    "scripted": "veriplan.llm.backends.scripted:ScriptedBackend",
}, group="veriplan.backends", error=UnknownBackendError)
# The controlled test models (controlled, controlled-aec, controlled-plan) live with their
# methods and plug in through the group: veriplan.registry.PLUGINS, veriplan.llm.controlled.
DEFAULT_BACKEND = "llamacpp"


def available() -> dict[str, str]:
    """Built-in backends plus those other packages register as entry points
    (``name -> "module:Class"``, or the class itself when registered so)."""
    return BACKENDS.entries()


def backend_class(name: str) -> type:
    return BACKENDS.get(name)


def register_backend(name: str, entry: type | str) -> None:
    """Add a backend at run time: the class or its ``"module:Class"`` path."""
    BACKENDS.register(name, entry)


def create_backend(name: str = DEFAULT_BACKEND, **options: object):
    """Instantiate a backend; options a backend does not take are ignored."""
    return backend_class(name)(**options)


def model_name(name: str, options: Mapping[str, object]) -> str:
    """The model a backend built with ``options`` runs, known without building
    it or loading a model: the class's ``model_name_for(options)`` if it has
    one, else the ``model`` option (or "")."""
    cls = backend_class(name)
    ask = getattr(cls, "model_name_for", None)
    if ask is not None:
        return str(ask(options))
    return str(options.get("model") or "")


__all__ = ["BACKENDS", "DEFAULT_BACKEND", "UnknownBackendError", "available",
           "backend_class", "create_backend", "model_name", "register_backend"]
