"""The type of a value as ``json.loads`` gives it: what a batch line, an item's id or
a sandboxed child's answer line can hold."""

from __future__ import annotations

from typing import TypeAlias

#: A JSON value, read with the standard decoder (objects as dicts, arrays as lists).
JSONValue: TypeAlias = ("None | bool | int | float | str | list[JSONValue] "
                        "| dict[str, JSONValue]")
