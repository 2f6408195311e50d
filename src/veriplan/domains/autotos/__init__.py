"""The AutoToS search domains: each a natural-language description for the
model, a state format, a partial soundness check, unit tests, a solution
validator, and a hand-written reference successor function and goal test.

A domain module defines ``DOMAIN`` (a :class:`SearchDomain`); the registry maps
names to modules, imported on first use (the sandbox child imports only the
domain it searches). Other packages add domains through the
``veriplan.autotos_domains`` entry-point group (a module defining ``DOMAIN``, or
a ``module:attr`` naming the domain itself).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, cast

from veriplan.domains.autotos.base import DomainData, SearchDomain

if TYPE_CHECKING:
    from types import ModuleType

    from veriplan.errors import ConfigError
    from veriplan.registry import Registry

# the built-in domains' modules (the sandbox child imports one of them directly,
# without the registry's entry-point scan)
BUILTIN = {
    "24game": "veriplan.domains.autotos.game24",
    "blocksworld": "veriplan.domains.autotos.blocksworld",
    "crossword": "veriplan.domains.autotos.crossword",
    "sokoban": "veriplan.domains.autotos.sokoban",
    "prontoqa": "veriplan.domains.autotos.prontoqa",
}


def _domain(name: str, obj: object) -> SearchDomain:
    """A domain named itself, or a module defining ``DOMAIN``."""
    return obj if isinstance(obj, SearchDomain) else cast("ModuleType", obj).DOMAIN


def _registry() -> tuple[Registry[SearchDomain], type[ConfigError]]:
    """The domain registry and its unknown-name error, made on first use (the
    sandbox child looks a built-in domain up without it)."""
    from veriplan.errors import ConfigError, DataError
    from veriplan.registry import Registry

    class UnknownDomainError(ConfigError, DataError):
        """An AutoToS domain name that is not registered (names the choices)."""

    return Registry("AutoToS domain", dict(BUILTIN), group="veriplan.autotos_domains",
                    load=_domain, error=UnknownDomainError), UnknownDomainError


_LAZY: dict[str, object] = {}


def __getattr__(name: str) -> Any:  # DOMAINS or UnknownDomainError, made on first use
    if name in ("DOMAINS", "UnknownDomainError"):
        if not _LAZY:
            _LAZY["DOMAINS"], _LAZY["UnknownDomainError"] = _registry()
        return _LAZY[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_domain(name: str) -> SearchDomain:
    return __getattr__("DOMAINS").get(name)


def builtin_domain(name: str) -> SearchDomain:
    """A built-in domain without the registry (the sandbox child's way); others
    through :func:`get_domain`."""
    if name in BUILTIN:
        return _domain(name, importlib.import_module(BUILTIN[name]))
    return get_domain(name)


__all__ = ["BUILTIN", "DOMAINS", "DomainData", "SearchDomain", "UnknownDomainError",
           "builtin_domain", "get_domain"]
