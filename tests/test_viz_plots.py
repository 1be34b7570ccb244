"""autograd_lab.viz.plots: the figure recorded in benchmarks/RESULTS.md is read back (or the one written in
the module when the file is absent), the ring picture's bookkeeping ends with every chunk summed, and each
picture draws without error."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from autograd_lab.viz import plots  # noqa: E402


def test_recorded_speedup_is_read_from_results(tmp_path):
    got = plots.recorded_speedup()
    row = next(line for line in plots.RESULTS.read_text().splitlines()
               if "1 process vs 2 data-parallel processes" in line)
    # (as the table prints them: two decimals, so 14.60 ms is read back as 14.6 and written 14.60)
    printed = f"{got.one_ms:.2f} ms vs {got.two_ms:.2f} ms: {got.speedup:.2f}x"
    assert f"{printed} speed-up on {got.cores} cores" in row
    assert got.made.startswith("python -m benchmarks on ")
    assert plots.recorded_speedup(tmp_path / "missing.md") == plots.RECORDED
    (tmp_path / "other.md").write_text("| nothing | here |\n")
    assert plots.recorded_speedup(tmp_path / "other.md") == plots.RECORDED


@pytest.mark.parametrize("p", [2, 3, 5])
def test_ring_states_end_with_every_chunk_summed(p):
    states = plots.ring_states(p)
    assert len(states) == 1 + 2 * (p - 1)
    label, have, _ = states[p - 1]  # after the reduce-scatter: worker r holds the sum of chunk r + 1
    assert all(have[r][(r + 1) % p] == set(range(p)) for r in range(p)), label
    assert all(chunk == set(range(p)) for row in states[-1][1] for chunk in row)


def test_pictures_draw(monkeypatch):
    shown = []
    monkeypatch.setattr(plt, "show", lambda: shown.append(plt.gcf()))
    plots.parallelism_overview()
    plots.ring_picture(3)
    plots.speedup([1, 2], {1: 0.03, 2: 0.04}, cores=2, load=3.0)
    assert "below 1" in shown[-1].axes[0].get_title()
    plots.speedup([1, 2], {1: 0.03, 2: 0.02}, cores=2)
    assert shown[-1].axes[0].get_title() == ""
    path = np.array([[1.0, 1.0], [0.5, 0.2], [0.0, 0.0]])
    plots.descent_paths(lambda q: q[0] ** 2 + q[1] ** 2, {"SGD": path}, (-2, 2), (-2, 2), [0.5, 1, 2], (0, 0))
    assert "SGD: f = 0" in shown[-1].axes[0].get_legend().get_texts()[0].get_text()
    assert len(shown) == 5
    plt.close("all")
