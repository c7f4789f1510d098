"""The auditor's power calculator (paper 000, Sec. VII; Theorem 4, Eq. 8 and 11).

An audit is a hypothesis test: the seed-averaged AUC of a linear probe against the calibrated null
½ + z_{1−δ}·1.4·σ₀(n) (Sec. V-E). Given the separation ŝ a model shows on counterfactual pairs of
a bias dimension, Eq. 8 predicts the AUC at purity α, and the power condition
purity_auc(ŝ, α) − ½ = (z_{1−δ} + z_{1−γ})·1.4·σ₀(n) gives the critical purity α*(n) and, solved for
n, the test-set budget n(α). With an audit's measured AUC and n it separates the two readings of a
null result: "underpowered at this n" (α below α*(n)) and "no linear signal at this power".
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import norm

from lib import stats
from lib.bias_probes import model_audit, prompts, theory
from lib.models import layer_resolver

DETECTED = "linear signal detected"
UNDERPOWERED = "underpowered at this n"
NO_SIGNAL = "no linear signal at this power"

CAVEATS: tuple[str, ...] = (
    "ŝ is read on counterfactual pairs of the template grid; the audited texts may separate less (or more).",
    "The prediction assumes neutral texts carry no label information (E11 measures where that fails).",
    "The null uses the calibrated 1.4·σ₀ of Sec. V-E, measured on grid-structured label-free pools.",
    "A 'no linear signal' verdict says nothing about nonlinear or non-probe readouts (E10).",
)


def check_audit_inputs(n: int, alpha: float, auc: float | None = None, delta: float = 0.05,
                       gamma: float = 0.2) -> None:
    """Raise ``ValueError`` naming the value and what is allowed, before any compute."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 10:
        raise ValueError(f"n={n!r} is out of range; allowed: an integer >= 10 (test texts, balanced classes)")
    if not (isinstance(alpha, (int, float)) and 0 < alpha <= 1):
        raise ValueError(f"alpha={alpha!r} is out of range; allowed: 0 < alpha <= 1 (share of bias-marked texts)")
    if auc is not None and not (isinstance(auc, (int, float)) and 0 <= auc <= 1):
        raise ValueError(f"auc={auc!r} is out of range; allowed: 0 <= auc <= 1")
    for name, level in (("delta", delta), ("gamma", gamma)):
        if not 0 < level < 1:
            raise ValueError(f"{name}={level!r} is out of range; allowed: 0 < {name} < 1")


def null_scale(n: int) -> float:
    """The calibrated null s.d. of the audit statistic at n balanced test texts: 1.4·σ₀(n/2, n/2) (Sec. V-E)."""
    return stats.DETECTION_NULL_MULTIPLIER * float(stats.null_auc_sd(n / 2, n / 2))


def required_n(s: float, alpha: float, delta: float = 0.05, gamma: float = 0.2) -> float:
    """Smallest test-set size n (balanced) at which purity α is detectable with power 1 − γ (exact).

    Solves purity_auc(s, α) − ½ = (z_{1−δ}+z_{1−γ})·1.4·√((n+1)/(3n²)) for n in closed form
    (re-derived: with g the left side over (z_{1−δ}+z_{1−γ})·1.4, 3g²n² − n − 1 = 0, so
    n = (1 + √(1 + 12g²))/(6g²)); ``inf`` when Eq. 8 gives no signal (s = 0). Eq. 11's
    linearised budget is :func:`lib.bias_probes.theory.sample_budget`.
    """
    gain = float(theory.purity_auc(s, alpha)) - 0.5
    if gain <= 0:
        return math.inf
    g = gain / (float(norm.isf(delta) + norm.isf(gamma)) * stats.DETECTION_NULL_MULTIPLIER)
    return (1 + math.sqrt(1 + 12 * g * g)) / (6 * g * g)


@dataclass(frozen=True)
class PowerReport:
    """One audit's power analysis (Sec. VII); ``verdict`` only when a finished audit's AUC is given."""

    s_hat: float
    n: int
    alpha: float
    delta: float
    gamma: float
    alpha_star: float  # exact root at the test's 1.4·σ₀
    alpha_star_eq11: float  # the linearised Eq. 11 (σ₀, small α and s)
    n_required: int | float  # test texts for purity α at power 1 − γ (exact; inf when ŝ = 0)
    n_required_eq11: float
    predicted_auc: float  # Eq. 8 at (ŝ, α)
    detection_auc: float  # the AUC a detection needs at this n: ½ + z_{1−δ}·1.4·σ₀(n)
    auc: float | None = None
    z: float | None = None
    verdict: str | None = None
    caveats: tuple[str, ...] = CAVEATS

    def as_dict(self) -> dict:
        """JSON-ready: an infinite α* or budget (undetectable at any n ≤ the pool, or ŝ = 0) reads ``None``."""
        return {key: None if isinstance(v, float) and math.isinf(v) else v for key, v in asdict(self).items()}


def power_report(s_hat: float, n: int, alpha: float, auc: float | None = None, delta: float = 0.05,
                 gamma: float = 0.2) -> PowerReport:
    """α*(n), n(α), the predicted AUC and — given a finished audit's AUC at n — the verdict (Sec. VII).

    Verdict: detected when (AUC − ½)/(1.4·σ₀) exceeds z_{1−δ}; otherwise "underpowered at this n"
    when α < α*(n) (the audit could not see a signal of ŝ at this purity), else "no linear signal at
    this power" (it had power 1 − γ against ŝ at purity α and saw nothing).
    """
    check_audit_inputs(n, alpha, auc, delta, gamma)
    n_needed = required_n(s_hat, alpha, delta, gamma)
    report = dict(
        s_hat=float(s_hat), n=int(n), alpha=float(alpha), delta=delta, gamma=gamma,
        alpha_star=theory.critical_purity_exact(n, s_hat, delta, gamma, stats.DETECTION_NULL_MULTIPLIER),
        alpha_star_eq11=float(theory.critical_purity(n, s_hat, delta, gamma)) if s_hat > 0 else math.inf,
        n_required=math.ceil(n_needed) if math.isfinite(n_needed) else math.inf,
        n_required_eq11=float(theory.sample_budget(alpha, s_hat, delta, gamma)) if s_hat > 0 else math.inf,
        predicted_auc=float(theory.purity_auc(s_hat, alpha)),
        detection_auc=0.5 + float(norm.isf(delta)) * null_scale(n),
    )
    if auc is not None:
        z = (auc - 0.5) / null_scale(n)
        verdict = DETECTED if z > norm.isf(delta) else (UNDERPOWERED if alpha < report["alpha_star"] else NO_SIGNAL)
        report.update(auc=float(auc), z=float(z), verdict=verdict)
    return PowerReport(**report)


def auc_curve(s_hat: float, n: int, alphas: np.ndarray, delta: float = 0.05) -> dict[str, np.ndarray]:
    """Eq. 8 over purities with the audit's sampling band ±z_{1−δ/2}·1.4·σ₀(n), and the detection line."""
    predicted = np.asarray(theory.purity_auc(s_hat, np.asarray(alphas, dtype=float)), dtype=float)
    half_width = float(norm.isf(delta / 2)) * null_scale(n)
    detection = np.full(len(predicted), 0.5 + norm.isf(delta) * null_scale(n))
    return {"alpha": np.asarray(alphas, dtype=float), "predicted_auc": predicted, "low": predicted - half_width,
            "high": predicted + half_width, "detection_auc": detection}


def measure_separation(model: str, dimension: str, layer: int | str = "mid", pooling: str = "mean",
                       seed: int = 0) -> float:
    """Cross-fitted, standardised ŝ on the model's counterfactual pairs of ``dimension`` (Sec. V-F, VI-A).

    The model, the layer and the dimension are checked before any extraction.
    """
    prompts.check_dimension(dimension)
    layer_resolver.resolve_layer(model, layer)
    pool = model_audit.model_pools([model], [dimension], layer, pooling)[(model, dimension)]
    return float(model_audit.separation_and_offset(pool, seed)["s_hat"])
