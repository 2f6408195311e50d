"""Checking a method's settings where they are made: every ``Config`` calls
:func:`check` from ``__post_init__``, so a wrong value is rejected the same way
from Python, from ``--config`` on the command line and from a sweep file."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping

from veriplan.errors import ConfigError


def _base(hint: object) -> tuple[type, bool]:
    """The plain type of a field annotation and whether None is allowed."""
    args = typing.get_args(hint)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else object), True  # type: ignore[return-value]
    return (hint if isinstance(hint, type) else object), False  # type: ignore[return-value]


def check(config: object, *, choices: Mapping[str, tuple] = {},
          minimum: Mapping[str, float] = {}) -> None:
    """Every field has its annotated type; ``choices[name]`` lists the allowed
    values of a field, ``minimum[name]`` its least value."""
    hints = typing.get_type_hints(type(config))
    for f in dataclasses.fields(config):  # type: ignore[arg-type]
        value = getattr(config, f.name)
        want, optional = _base(hints.get(f.name, object))
        if value is None and optional:
            continue
        ok = (want is object or isinstance(value, want)
              or (want is float and isinstance(value, int)))
        if want in (int, float) and isinstance(value, bool):
            ok = False
        if not ok:
            raise ConfigError(f"setting {f.name}={value!r} is not a valid {want.__name__}")
        if f.name in choices and value not in choices[f.name]:
            raise ConfigError(f"setting {f.name}={value!r}: use one of "
                              f"{', '.join(map(str, choices[f.name]))}")
        if f.name in minimum and value < minimum[f.name]:
            raise ConfigError(f"setting {f.name}={value!r} must be at least "
                              f"{minimum[f.name]}")


def coerce(raw: object, hint: object, key: str) -> object:
    """A command-line string as the field's type (other values unchanged)."""
    if not isinstance(raw, str):
        return raw
    base, _ = _base(hint)
    try:
        if base is bool:
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError(raw)
            return raw.lower() in ("true", "1", "yes")
        if base in (int, float):
            return base(raw)
    except ValueError:
        raise ConfigError(f"setting {key}={raw!r} is not a valid {base.__name__}") from None
    return raw
