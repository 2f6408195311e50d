"""The AutoToS search domains: each a natural-language description for the
model, a state format, a partial soundness check, unit tests, a solution
validator, and a hand-written reference successor function and goal test.

A domain module defines ``DOMAIN`` (a :class:`SearchDomain`); the registry maps
names to modules, imported on first use (the sandbox child imports only the
domain it searches).
"""

from __future__ import annotations

import importlib

from veriplan.domains.autotos.base import DomainData, SearchDomain
from veriplan.errors import DataError

DOMAINS: dict[str, str] = {
    "24game": "veriplan.domains.autotos.game24",
    "blocksworld": "veriplan.domains.autotos.blocksworld",
    "crossword": "veriplan.domains.autotos.crossword",
    "sokoban": "veriplan.domains.autotos.sokoban",
    "prontoqa": "veriplan.domains.autotos.prontoqa",
}


def get_domain(name: str) -> SearchDomain:
    if name not in DOMAINS:
        raise DataError(f"unknown AutoToS domain {name!r}: use one of {', '.join(DOMAINS)}")
    return importlib.import_module(DOMAINS[name]).DOMAIN


__all__ = ["DOMAINS", "DomainData", "SearchDomain", "get_domain"]
