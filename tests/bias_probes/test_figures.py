"""lib.bias_probes.figures: the paper-000 panels shared by the theory and ground-truth notebooks."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from lib.bias_probes import figures, simulate  # noqa: E402


def test_chordal_auc_panel_draws_every_curvature():
    chord = simulate.chordal_law([0.0, 1.0], [0.5, 2.0], sigma_w=1.0, n=100, reps=3)
    fig, ax = plt.subplots()
    colours = figures.chordal_auc_panel(ax, chord, 1.0)
    assert set(colours) == {0.0, 1.0}
    assert len(ax.lines) >= 3  # two curves and one ceiling
