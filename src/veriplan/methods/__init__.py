"""The planning methods, one subpackage each, found through a registry
(``name -> "module:function"``, imported lazily; entry-point group
``veriplan.methods`` adds more)."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from veriplan.errors import VeriplanError

METHODS: dict[str, str] = {
    "backprompt": "veriplan.methods.backprompt.method:solve",
}
DEFAULT_METHOD = "backprompt"


def method_function(name: str):
    table = dict(METHODS)
    for ep in entry_points(group="veriplan.methods"):
        table.setdefault(ep.name, ep.value)
    try:
        module, _, attr = table[name].partition(":")
    except KeyError:
        raise VeriplanError(f"unknown method {name!r}: use one of {', '.join(sorted(table))}"
                            ) from None
    return getattr(importlib.import_module(module), attr)
