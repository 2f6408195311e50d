"""What became of each line of an answer when a plan was read from it: the audit
trail behind ``veriplan validate --explain-reading``."""

from __future__ import annotations

from veriplan.planio.parsed import ParsedPlan


def explain_reading(text: str, parsed: ParsedPlan) -> list[dict]:
    """One record a line of ``text``: ``line`` (1-based), ``text`` (stripped),
    ``as`` (``step``: it gave the steps in ``steps``, numbered in the plan;
    ``prose``: set aside, ``reason`` says why; ``unread``: it makes the plan not
    valid, ``reason`` says why; ``blank``; ``other``: a marker, fence, comment or
    a line after the end marker)."""
    if text[:1] == "\ufeff":
        text = text[1:]
    if "\n" not in text.strip() and "\\n" in text:
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    lines = text.splitlines()
    steps: dict[int, list[tuple[int, str]]] = {}
    for i, step in enumerate(parsed.steps, 1):
        if step.line is not None:
            steps.setdefault(step.line, []).append((i, str(step)))
    unread = {u.line: u.reason for u in parsed.unread}
    prose = {u.line: u.reason for u in parsed.prose}
    out = []
    for n, raw in enumerate(lines, 1):
        rec: dict = {"line": n, "text": raw.strip()}
        if n in unread:
            rec.update({"as": "unread", "reason": unread[n]})
        elif n in steps:
            rec.update({"as": "step", "steps": [{"number": i, "step": s}
                                                for i, s in steps[n]]})
        elif n in prose:
            rec.update({"as": "prose", "reason": prose[n]})
        elif not raw.strip():
            rec["as"] = "blank"
        else:
            rec.update({"as": "other", "reason": "a plan marker, code fence, comment or "
                        "a line after the end of the plan"})
        out.append(rec)
    return out


def render_reading(records: list[dict]) -> list[str]:
    """The records as lines for a terminal (blank lines left out)."""
    out = []
    for r in records:
        if r["as"] == "blank":
            continue
        head = f"line {r['line']:>3}"
        if r["as"] == "step":
            what = ", ".join(f"step {s['number']} {s['step']}" for s in r["steps"])
            out.append(f"{head} -> {what}: {r['text']}")
        else:
            out.append(f"{head} {r['as']} ({r['reason']}): {r['text']}")
    return out
