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

from typing import Any

from veriplan.domains.autotos.base import DomainData, SearchDomain
from veriplan.errors import ConfigError, DataError
from veriplan.registry import Registry


class UnknownDomainError(ConfigError, DataError):
    """An AutoToS domain name that is not registered (names the choices)."""


def _domain(name: str, obj: Any) -> SearchDomain:
    return obj if isinstance(obj, SearchDomain) else obj.DOMAIN


DOMAINS: Registry[SearchDomain] = Registry("AutoToS domain", {
    "24game": "veriplan.domains.autotos.game24",
    "blocksworld": "veriplan.domains.autotos.blocksworld",
    "crossword": "veriplan.domains.autotos.crossword",
    "sokoban": "veriplan.domains.autotos.sokoban",
    "prontoqa": "veriplan.domains.autotos.prontoqa",
}, group="veriplan.autotos_domains", load=_domain, error=UnknownDomainError)


def get_domain(name: str) -> SearchDomain:
    return DOMAINS.get(name)


__all__ = ["DOMAINS", "DomainData", "SearchDomain", "UnknownDomainError", "get_domain"]
