"""A paper's results as text, Markdown and JSON: the paper's number and
setting beside ours (value, interval, units, model-solved and fallback-solved
apart), the model kind, the verdict with its reason, and the command that
measured it. Output depends on the results only (no time, no absolute path),
so ``docs/claims.md`` can be regenerated and compared."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from veriplan.papers.claims import Claim, ClaimResult, Measured, PaperReport


def ours(result: ClaimResult) -> str:
    """Our number: value [interval], n (model-solved / fallback-solved)."""
    m = result.measured
    if m is None:
        return "-"
    show = result.claim.scale.show
    if math.isnan(m.value):
        return "-"
    text = show(m.value)
    if m.interval is not None:
        text += f" [{show(m.interval[0])}, {show(m.interval[1])}]"
    text += f", n = {m.n}"
    if m.fallback_solved:
        text += f", {m.fallback_solved} fallback-solved (not counted)"
    return text


def _kind(m: Measured | None) -> str:
    if m is None:
        return "-"
    return f"{m.model_kind.value} ({m.model})" if m.model else m.model_kind.value


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_text(reports: Sequence[PaperReport]) -> str:
    lines: list[str] = []
    for rep in reports:
        lines.append(f"{rep.name}: {rep.title}")
        if not rep.available:
            lines += [f"  {rep.note}", ""]
            continue
        lines.append(f"  --quick: {rep.quick}")
        if rep.stores:
            lines.append(f"  stores: {', '.join(rep.stores)}")
        for r in rep.results:
            c = r.claim
            lines.append(f"  [{r.verdict.value}] {c.id} ({c.source}): {c.statement}")
            lines.append(f"      paper: {c.paper_number} ({c.setting})")
            lines.append(f"      ours:  {ours(r)}; model: {_kind(r.measured)}")
            if r.measured is not None and r.measured.detail:
                lines.append(f"      counts: {r.measured.detail}")
            lines.append(f"      why:   {r.reason}")
            if r.measured is not None and r.measured.command:
                lines.append(f"      by:    {r.measured.command}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def claims_text(name: str, title: str, quick: str, claims: Sequence[Claim]) -> str:
    """``--list``: a paper's claims, without measuring anything."""
    lines = [f"{name}: {title}", f"  --quick: {quick}"]
    for c in claims:
        lines.append(f"  {c.id} ({c.source}): {c.statement}")
        lines.append(f"      paper: {c.paper_number} ({c.setting}); verdict rule: "
                     f"{_rule(c)}")
        if c.needs:
            lines.append(f"      needs: {c.needs}")
    return "\n".join(lines) + "\n"


def _rule(c: Claim) -> str:
    if c.threshold is None:
        return "the paper's number inside our 95% interval"
    return f"our 95% interval wholly {c.comparison.value} {c.scale.show(c.threshold)}"


def to_markdown(reports: Sequence[PaperReport], *, heading: str = "") -> str:
    out: list[str] = []
    if heading:
        out += [heading, ""]
    for rep in reports:
        out.append(f"## {rep.name}: {rep.title}")
        out.append("")
        if not rep.available:
            out += [rep.note, ""]
            continue
        out.append(f"`--quick`: {rep.quick}")
        out.append("")
        if rep.stores:
            out += ["Stores read: " + ", ".join(f"`{s}`" for s in rep.stores), ""]
        out.append("| claim | source | statement | the paper (setting) | ours | model | "
                   "verdict | why | command |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for r in rep.results:
            c, m = r.claim, r.measured
            detail = f" ({m.detail})" if m is not None and m.detail else ""
            command = f"`{m.command}`" if m is not None and m.command else "-"
            out.append("| " + " | ".join(_cell(x) for x in (
                c.id, c.source, c.statement, f"{c.paper_number} ({c.setting})",
                ours(r) + detail, _kind(m), f"**{r.verdict.value}**", r.reason, command))
                + " |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _claim_doc(c: Claim) -> dict[str, object]:
    return {"paper": c.paper, "id": c.id, "statement": c.statement,
            "paper_number": c.paper_number, "paper_value": c.paper_value,
            "setting": c.setting, "source": c.source, "comparison": c.comparison.value,
            "threshold": c.threshold, "scale": c.scale.value, "needs": c.needs or None}


def _measured_doc(m: Measured | None) -> dict[str, object] | None:
    if m is None:
        return None
    finite = not math.isnan(m.value)
    return {"value": m.value if finite else None,
            "interval": list(m.interval) if m.interval is not None else None, "n": m.n,
            "model_solved": m.model_solved, "fallback_solved": m.fallback_solved,
            "model_kind": m.model_kind.value, "model": m.model, "command": m.command,
            "detail": m.detail}


def report_doc(rep: PaperReport) -> dict[str, object]:
    return {"name": rep.name, "title": rep.title, "available": rep.available,
            "note": rep.note or None, "quick": rep.quick, "stores": list(rep.stores),
            "claims": [_claim_doc(c) for c in rep.claims],
            "results": [{"claim": r.claim.id, "verdict": r.verdict.value, "reason": r.reason,
                         "measured": _measured_doc(r.measured)} for r in rep.results]}


def to_json(reports: Sequence[PaperReport]) -> str:
    return json.dumps({"papers": [report_doc(r) for r in reports]}, indent=1) + "\n"


__all__ = ["claims_text", "ours", "report_doc", "to_json", "to_markdown", "to_text"]
