"""Figure panels of paper 000 shared by the theory and ground-truth notebooks."""

from __future__ import annotations

import numpy as np
import pandas as pd

from lib.bias_probes import theory


def chordal_auc_panel(ax, chord: pd.DataFrame, sigma_w: float):
    """Fig. 3b of paper 000: Eq. 6 per curvature (lines), Monte Carlo AUC (±2 s.e.), ceilings (dotted).

    ``chord`` is a :func:`lib.bias_probes.simulate.chordal_law` table. Returns the line colour of each κ.
    """
    colours = {}
    r_fine = np.linspace(0, chord.r.max(), 300)
    for kappa, cell in chord.groupby("kappa"):
        r_ok = r_fine if kappa == 0 else r_fine[np.sqrt(kappa) * r_fine <= np.pi]
        line = ax.plot(r_ok, theory.chordal_auc(r_ok, kappa, sigma_w), label=f"κ = {kappa:g}")[0]
        colours[kappa] = line.get_color()
        ax.errorbar(cell.r, cell.mc_auc, yerr=2 * cell.mc_se, fmt="o", ms=3, color=colours[kappa])
        if kappa > 0:
            ax.axhline(theory.curvature_ceiling(kappa, sigma_w), ls=":", lw=1, color=colours[kappa])
    ax.set(xlabel="geodesic distance r", ylabel="AUC", title=f"chordal AUC, σ_w = {sigma_w:g}; ceilings dotted")
    return colours
