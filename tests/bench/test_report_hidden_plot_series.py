"""Issue 33: the controlled SQ-BCP plot (violations and success against p)
draws one line per method and error model: the `omit=pre` units at p = 0.2 and
0.4 are not joined to the `omit=all` units at the same p (that drew a vertical
segment inside SQ-BCP's line instead of a second line)."""

from __future__ import annotations

import json

import matplotlib.axes

from veriplan.bench.report_hidden import controlled_section
from veriplan.bench.store import UnitRecord


def unit(i: int, model: str, *, violated: bool) -> UnitRecord:
    verdict = "invalid" if violated else "valid"
    metrics = {"violated": violated, "no_plan": False, "verdict": verdict,
               "judgement": {"verdict": verdict, "scope": "hidden_task", "findings": []}}
    return UnitRecord(f"u{model}{i}", "sqbcp", "sqbcp_recipes", f"t{i}", "controlled", model,
                      json.dumps({"k": 1}), 0, "done", not violated, "llm", 1, 10, None, 1.0,
                      None, None, json.dumps({"metrics": metrics}), "0", "0", float(i))


MODELS = ["sqbcp:p_hidden=0.0,acc=0.5,seed=0", "sqbcp:p_hidden=0.2,acc=0.5,seed=0",
          "sqbcp:p_hidden=0.2,acc=0.5,seed=0,omit=pre", "sqbcp:p_hidden=0.4,acc=0.5,seed=0",
          "sqbcp:p_hidden=0.4,acc=0.5,seed=0,omit=pre"]
RECORDS = [unit(i, m, violated=i < 2 and "omit" not in m) for m in MODELS for i in range(4)]


def test_each_error_model_is_its_own_line(tmp_path, monkeypatch):
    drawn: list[tuple[str, list[float]]] = []
    plot = matplotlib.axes.Axes.plot

    def spy(self, *args, **kwargs):
        if "label" in kwargs:
            drawn.append((kwargs["label"], list(args[0])))
        return plot(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", spy)
    _, plots = controlled_section(RECORDS, tmp_path)
    assert "controlled_sqbcp.png" in plots
    lines = dict(drawn)  # the violation and the success panel draw the same series
    assert lines == {"sqbcp": [0.0, 0.2, 0.4], "sqbcp (omit=pre)": [0.2, 0.4]}
