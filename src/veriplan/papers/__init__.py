"""Each paper's claims beside what veriplan measures of them (``veriplan paper``).

:data:`PAPERS` maps a paper's name to its method's ``paper:PAPER`` (a
:class:`~veriplan.papers.protocol.Paper`), imported on first use; :func:`get_paper`
says when a registered paper's module is not there yet
(:class:`PaperNotAvailableError`). The claims and the verdict rule are in
:mod:`veriplan.papers.claims`, the protocol in :mod:`veriplan.papers.protocol`,
measurements from stores in :mod:`veriplan.papers.measure`, rendering in
:mod:`veriplan.papers.render`.

This package sits on the harness's floor (it runs sweeps and reads stores):
it imports ``bench`` and ``methods``, never ``cli``, ``mcp`` or ``inspect``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veriplan.errors import ConfigError
from veriplan.registry import Registry

if TYPE_CHECKING:
    from veriplan.papers.protocol import Paper


class PaperNotAvailableError(ConfigError):
    """A registered paper whose module is not there yet (or does not export
    ``PAPER``): names the paper and the module."""

    def __init__(self, name: str, target: str, cause: BaseException) -> None:
        self.name, self.target = name, target
        super().__init__(f"paper {name!r} is not yet available: {target} cannot be loaded "
                         f"({type(cause).__name__}: {cause})")


def _check(name: str, obj: object) -> Paper:
    from veriplan.papers.protocol import Paper

    if not isinstance(obj, Paper):
        raise ConfigError(f"paper {name!r}: {type(obj).__name__} is not a Paper (it needs "
                          "name, title, quick, controlled, committed, claims(), run() and "
                          "results())")
    return obj


# The papers, in the order docs/claims.md lists them.
PAPERS: Registry[Paper] = Registry("paper", {
    "sqbcp": "veriplan.methods.sqbcp.paper:PAPER",
    "autotos": "veriplan.methods.autotos.paper:PAPER",
    "aec": "veriplan.methods.aec.paper:PAPER",
    "closed-loop": "veriplan.methods.closed_loop.paper:PAPER",
    "drip": "veriplan.methods.drip.paper:PAPER",
}, group="veriplan.papers", load=_check)


def get_paper(name: str) -> Paper:
    """The paper registered as ``name``; an unknown name is a ConfigError naming
    the choices, a registered one whose module is missing a
    :class:`PaperNotAvailableError`."""
    if name not in PAPERS:
        raise PAPERS.unknown(name)
    entry = str(PAPERS.entries().get(name))
    module, _, attr = entry.partition(":")
    try:
        return PAPERS.get(name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (module == missing or module.startswith(missing + ".")):
            raise  # the module is there, and something it imports is not
        raise PaperNotAvailableError(name, entry, exc) from exc
    except AttributeError as exc:
        if getattr(exc, "name", None) != attr:
            raise
        raise PaperNotAvailableError(name, entry, exc) from exc


def paper_names() -> list[str]:
    """Every paper's name, in the declared order."""
    return PAPERS.declared()


__all__ = ["PAPERS", "PaperNotAvailableError", "get_paper", "paper_names"]
