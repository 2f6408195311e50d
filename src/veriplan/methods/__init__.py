"""The planning methods, one subpackage each, found through a registry.

A method module exposes ``Config`` (a frozen dataclass with the paper's
defaults) and ``run(instance, llm, config, seed) -> SolveResult`` for the
benchmark harness; its ``solve`` function is the direct Python API. The
registry maps names to modules (imported lazily); the entry-point group
``veriplan.methods`` and :func:`register_method` add more.
"""

from __future__ import annotations

import dataclasses
import importlib
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from veriplan.errors import ConfigError, VeriplanError

METHODS: dict[str, str] = {
    "backprompt": "veriplan.methods.backprompt",
    "direct": "veriplan.methods.direct",
    "closed-loop": "veriplan.methods.closed_loop",
    "drip": "veriplan.methods.drip",
    "cot": "veriplan.methods.baselines.cot",
    "react": "veriplan.methods.baselines.react",
    "autotos": "veriplan.methods.autotos",
}
DEFAULT_METHOD = "closed-loop"
_REGISTERED: dict[str, MethodSpec] = {}


@dataclass(frozen=True)
class MethodSpec:
    name: str
    run: Callable[..., Any]
    config_cls: type

    def make_config(self, options: Mapping[str, object]) -> Any:
        """The method's config with ``options`` (strings from the command line
        are converted to the fields' types)."""
        fields = {f.name: f for f in dataclasses.fields(self.config_cls)}
        hints = typing.get_type_hints(self.config_cls)
        values = {}
        for key, raw in options.items():
            if key not in fields:
                raise ConfigError(f"method {self.name} has no setting {key!r}; its settings "
                                  f"are {', '.join(fields)}")
            values[key] = _coerce(raw, hints[key], key)
        return self.config_cls(**values)


def _coerce(raw: object, hint: object, key: str) -> object:
    if not isinstance(raw, str):
        return raw
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Union else hint
    try:
        if base is bool:
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(raw)
            return raw.lower() in ("true", "1", "yes")
        if base in (int, float):
            return base(raw)  # type: ignore[operator]
    except ValueError:
        raise ConfigError(f"setting {key}={raw!r} is not a valid {base.__name__}") from None
    return raw


def register_method(name: str, run: Callable[..., Any], config_cls: type) -> None:
    """Add a method at run time (tests, benchmarks, notebooks)."""
    _REGISTERED[name] = MethodSpec(name, run, config_cls)


def available_methods() -> list[str]:
    names = set(METHODS) | set(_REGISTERED)
    names |= {ep.name for ep in entry_points(group="veriplan.methods")}
    return sorted(names)


def get_method(name: str) -> MethodSpec:
    if name in _REGISTERED:
        return _REGISTERED[name]
    table = dict(METHODS)
    for ep in entry_points(group="veriplan.methods"):
        table.setdefault(ep.name, ep.value)
    if name not in table:
        raise VeriplanError(f"unknown method {name!r}: use one of "
                            f"{', '.join(available_methods())}")
    module = importlib.import_module(table[name])
    return MethodSpec(name, module.run, module.Config)
