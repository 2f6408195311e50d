"""The one way the report's plots are drawn and written: pyplot on the Agg
backend (files only, no display needed), and each figure laid out, written
as a PNG at 110 dpi beside the store and closed. Every section of
``veriplan report`` (:mod:`veriplan.bench.report` and its ``report_*``
modules) ends its plots here, so they share one resolution and none is left
open."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

DPI = 110


def pyplot() -> ModuleType:
    """matplotlib's pyplot, drawing on the Agg backend (imported on first use:
    the report's text needs no matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Figure, out: Path, name: str) -> str:
    """Lay ``fig`` out, write it to ``out / name`` and close it; returns ``name``
    (the report links the plot by it)."""
    fig.tight_layout()
    fig.savefig(out / name, dpi=DPI)
    pyplot().close(fig)
    return name


__all__ = ["DPI", "pyplot", "save_figure"]
