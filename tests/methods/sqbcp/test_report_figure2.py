"""Issue 33: the controlled SQ-BCP study's Figure 2 as a plot: `veriplan
report` writes SQ-BCP's mean queries and hypotheses per task against the
number of hidden preconditions, one line per setting, and links it."""

from __future__ import annotations

import json

import matplotlib.axes

from veriplan.bench.store import UnitRecord
from veriplan.methods.sqbcp.report import controlled_section

MODELS = ["sqbcp:p_hidden=0.0,acc=0.5,seed=0", "sqbcp:p_hidden=0.4,acc=0.5,seed=0"]


def unit(i: int, model: str, method: str = "sqbcp") -> UnitRecord:
    hidden = 1 + i % 3  # 1, 2, 3 hidden preconditions
    metrics = {"violated": False, "no_plan": False, "verdict": "valid", "hidden": hidden,
               "queries": hidden + (i >= 3) + ("0.4" in model), "hypotheses": 2 * hidden,
               "judgement": {"verdict": "valid", "scope": "hidden_task", "findings": []}}
    return UnitRecord(f"u{method}{model}{i}", method, "sqbcp_recipes", f"t{i}", "controlled",
                      model, json.dumps({"k": 1}), 0, "done", True, "llm", 1, 10, None, 1.0,
                      None, None, json.dumps({"metrics": metrics}), "0", "0", float(i))


RECORDS = [unit(i, m) for m in MODELS for i in range(6)] + [unit(0, MODELS[0], "self-ask")]


def test_the_report_writes_figure_2(tmp_path, monkeypatch):
    drawn: list[tuple[str, list[float], list[float]]] = []
    plot = matplotlib.axes.Axes.plot

    def spy(self, *args, **kwargs):
        drawn.append((kwargs.get("label", ""), list(args[0]), list(args[1])))
        return plot(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", spy)
    md, plots = controlled_section(RECORDS, tmp_path)
    name = "controlled_sqbcp_figure2.png"
    assert name in plots and (tmp_path / name).stat().st_size > 0
    assert f"![{name}]({name})" in md
    # queries: hidden h has units i = h-1 (+0) and i = h+2 (+1): mean h + 0.5 (+1 at p=0.4)
    assert ("p=0.0, acc=0.5", [1, 2, 3], [1.5, 2.5, 3.5]) in drawn
    assert ("p=0.4, acc=0.5", [1, 2, 3], [2.5, 3.5, 4.5]) in drawn
    assert ("p=0.0, acc=0.5", [1, 2, 3], [2.0, 4.0, 6.0]) in drawn  # hypotheses


def test_no_figure_2_without_sqbcp_units(tmp_path):
    _, plots = controlled_section([unit(i, MODELS[0], "self-ask") for i in range(3)], tmp_path)
    assert "controlled_sqbcp_figure2.png" not in plots
    assert not (tmp_path / "controlled_sqbcp_figure2.png").exists()
