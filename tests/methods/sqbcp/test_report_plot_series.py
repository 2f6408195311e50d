"""Issue 33: the controlled SQ-BCP plot (violations and success against p)
draws one line per method and error model: the `omit=pre` units at p = 0.2 and
0.4 are not joined to the `omit=all` units at the same p (that drew a vertical
segment inside SQ-BCP's line instead of a second line)."""

from __future__ import annotations

import json

import matplotlib.axes

from veriplan.bench.store import UnitRecord
from veriplan.methods.sqbcp.report import controlled_section


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


def test_a_series_keeps_its_colour_in_every_panel_and_the_legend_names_all(tmp_path,
                                                                          monkeypatch):
    """A method on one dataset only (hidden-tos: hidden-fact PDDL) shifted the other
    series' colours on that panel and was missing from the legend (drawn from the last
    panel)."""
    import dataclasses

    tos = [dataclasses.replace(r, id=f"tos{r.id}", method="hidden-tos",
                               dataset="sqbcp_pddl_hidden") for r in RECORDS]
    pddl = [dataclasses.replace(r, id=f"p{r.id}", dataset="sqbcp_pddl_hidden")
            for r in RECORDS]
    colours: dict[str, set] = {}
    legends: list[list[str]] = []
    plot, legend = matplotlib.axes.Axes.plot, matplotlib.axes.Axes.legend

    def spy(self, *args, **kwargs):
        if "label" in kwargs:
            colours.setdefault(kwargs["label"], set()).add(kwargs.get("color"))
        return plot(self, *args, **kwargs)

    def spy_legend(self, *args, **kwargs):
        legends.append(list(args[1]) if len(args) > 1 else
                       [t for t in self.get_legend_handles_labels()[1]])
        return legend(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", spy)
    monkeypatch.setattr(matplotlib.axes.Axes, "legend", spy_legend)
    controlled_section(RECORDS + pddl + tos, tmp_path)
    assert set(colours) == {"sqbcp", "sqbcp (omit=pre)", "hidden-tos", "hidden-tos (omit=pre)"}
    assert all(len(c) == 1 and None not in c for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == 4
    assert sorted(legends[-1]) == sorted(colours)
