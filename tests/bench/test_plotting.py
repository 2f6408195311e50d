"""The report's one plot-saving path: each figure written as a PNG at the
report's resolution under the name the report links, and closed."""

from __future__ import annotations

from veriplan.bench.plotting import DPI, pyplot, save_figure


def test_a_saved_figure_is_written_at_the_reports_resolution_and_closed(tmp_path):
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(2, 1))
    ax.plot([0, 1], [1, 0])
    assert fig.number in plt.get_fignums()
    assert save_figure(fig, tmp_path, "x.png") == "x.png"
    assert fig.number not in plt.get_fignums()
    from PIL import Image

    with Image.open(tmp_path / "x.png") as im:
        assert im.size == (2 * DPI, 1 * DPI)
    assert plt.get_backend().lower() == "agg"
