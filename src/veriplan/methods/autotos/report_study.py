"""The controlled study's curves (issue 48): for each domain and each setting
of the controlled writer (error rate ``e``, or the recorded profile), the
paper's Table 1 (calls a run), Figure 2 (accuracy at the three points, w/ and
w/o val), the completeness step's effect and the runs that end at 100%, over
the units of one or more run stores.

    python -m veriplan.methods.autotos.report_study results/autotos-controlled
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from veriplan.methods.autotos.paper import DOMAINS, calls, point, runs
from veriplan.papers.measure import Unit, groups, read_units


class StudyRow(TypedDict):
    """One (domain, model) of the study (:func:`rows`): w/ val unless ``_wo``."""

    domain: str
    model: str
    runs: int
    runs_wo: int
    calls: float | None
    passed: int
    initial: float | None
    sound: float | None
    sound_reached: int
    end: float | None
    end_wo: float | None
    at_100: int
    at_100_wo: int
    completeness_gain: float | None


def _rate(model: str) -> tuple[float, str]:
    """Sort key: the error rate ``e`` of a model string, the recorded profile last."""
    for part in model.partition(":")[2].split(","):
        k, _, v = part.partition("=")
        if k.strip() == "e":
            return float(v), model
    return 2.0, model


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def rows(units: Sequence[Unit]) -> list[StudyRow]:
    """One row a (domain, model): the numbers the curves plot."""
    out: list[StudyRow] = []
    by = groups(units)
    for domain in DOMAINS:
        for (_kind, model) in sorted(by, key=lambda k: _rate(k[1])):
            g = by[(_kind, model)]
            on, off = runs(g, domain, True), runs(g, domain, False)
            if not on and not off:
                continue

            def end(us: Sequence[Unit]) -> list[float]:
                return [v for v in (point(u, "end") for u in us) if v is not None]

            sound = [u for u in on if point(u, "sound") is not None]
            out.append({
                "domain": domain, "model": model, "runs": len(on), "runs_wo": len(off),
                "calls": _mean([c for c in (calls(u) for u in on) if c is not None]),
                "passed": sum(1 for u in on if u.metrics.get("status") == "passed"),
                "initial": _mean([v for v in (point(u, "initial") for u in on)
                                  if v is not None]),
                "sound": _mean([point(u, "sound") or 0.0 for u in sound]),
                "sound_reached": len(sound),
                "end": _mean(end(on)), "end_wo": _mean(end(off)),
                "at_100": sum(1 for v in end(on) if v == 1.0),
                "at_100_wo": sum(1 for v in end(off) if v == 1.0),
                "completeness_gain": _mean([(point(u, "end") or 0.0) - (point(u, "sound") or 0.0)
                                            for u in sound]),
            })
    return out


def markdown(units: Sequence[Unit]) -> str:
    lines = ["| domain | writer | calls a run (w/ val) | passed every test | initial | sound "
             "(reached) | end w/ val | end w/o val | runs at 100% w/ val | w/o val | "
             "end minus sound |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows(units):
        gain = r["completeness_gain"]
        lines.append(
            f"| {r['domain']} | {r['model']} | "
            f"{'-' if r['calls'] is None else format(r['calls'], '.1f')} | "
            f"{r['passed']}/{r['runs']} | {_pct(r['initial'])} | {_pct(r['sound'])} "
            f"({r['sound_reached']}/{r['runs']}) | {_pct(r['end'])} | {_pct(r['end_wo'])} | "
            f"{r['at_100']}/{r['runs']} | {r['at_100_wo']}/{r['runs_wo']} | "
            f"{'-' if gain is None else format(100 * gain, '+.1f') + ' pp'} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    stores = [Path(a) for a in (argv if argv is not None else sys.argv[1:])]
    if not stores:
        print("usage: python -m veriplan.methods.autotos.report_study STORE_DIR...",
              file=sys.stderr)
        return 2
    print(markdown(read_units(stores)), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
