"""AutoToS's section of ``veriplan report``: the paper's Table 1 and Figures
2-4 over the store's finished ``autotos`` units (read from each result's
``metrics``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from veriplan.methods import ReportSection
from veriplan.methods.autotos.figures import RunSummary, aggregate, markdown

if TYPE_CHECKING:
    from pathlib import Path

    from veriplan.bench.store import UnitRecord


def section(records: list[UnitRecord], out: Path) -> ReportSection:
    """Markdown to append to the report and the numbers for report.json's
    ``autotos`` (None without such units); no plots."""
    runs = [RunSummary.from_metrics(f"{r.backend}:{r.model}", metrics)
            for r in records if r.method == "autotos" and r.status == "done"
            and (metrics := r.result_dict().get("metrics"))]
    if not runs:
        return ReportSection("", {"autotos": None})
    return ReportSection("\n" + markdown(runs), {"autotos": aggregate(runs)})


__all__ = ["section"]
