"""Probes and the probing protocol of paper 000 (Sec. V-E, VI-A), as scikit-learn estimators.

The paper's probe: standardise on the training folds, ℓ2 logistic regression with C = 1; grouped
5-fold cross-validation by context cell (counterfactual pair members share a group, so they
always travel together) × 5 seeds; the pooled out-of-fold AUC per seed; detection = one-sided
z-test of the seed-averaged AUC against 1.4·σ₀ at level .05 (:func:`lib.stats.detection_test`).
E10 runs RBF-SVM and one-hidden-layer MLP probes under the identical protocol, and oracles that
score by the true discriminant direction or by true geodesic distance.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from lib import parallel, stats


class StandardizedProbe(ClassifierMixin, BaseEstimator):
    """Standardise on the training data, then fit ``estimator`` (paper 000, Sec. VI-A).

    A scikit-learn classifier: the scaler and a clone of ``estimator`` are fitted into
    ``scaler_`` and ``estimator_``; scores come from the inner decision function.
    """

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        check_classification_targets(y)
        self.scaler_ = StandardScaler().fit(X)
        inner = LogisticRegression() if self.estimator is None else self.estimator
        self.estimator_ = clone(inner).fit(self.scaler_.transform(X), y)
        self.classes_ = self.estimator_.classes_
        return self

    def _inner(self, X):
        check_is_fitted(self, "estimator_")
        return self.scaler_.transform(validate_data(self, X, reset=False))

    def decision_function(self, X):
        """The inner decision function, or P(y = 1) for an estimator without one (the MLP)."""
        Z = self._inner(X)
        if hasattr(self.estimator_, "decision_function"):
            return self.estimator_.decision_function(Z)
        return self.estimator_.predict_proba(Z)[:, 1]

    def predict(self, X):
        Z = self._inner(X)
        return self.estimator_.predict(Z)


def linear_probe(C: float = 1.0) -> StandardizedProbe:
    """The paper's probe: standardisation then ℓ2 logistic regression (C = 1, Sec. VI-A)."""
    return StandardizedProbe(LogisticRegression(C=C, max_iter=2000))


def rbf_svm_probe(C: float = 1.0) -> StandardizedProbe:
    """E10: RBF-kernel SVM on standardised features (γ = 1/(d·Var), scikit-learn's "scale")."""
    return StandardizedProbe(SVC(C=C, kernel="rbf", gamma="scale"))


def mlp_probe(hidden: int = 64, alpha: float = 1e-3, seed: int = 0) -> StandardizedProbe:
    """E10: one-hidden-layer MLP (ReLU, Adam, ℓ2 penalty ``alpha``) on standardised features.

    Early stopping on a 10% validation split of the training folds (ten times faster than a fixed
    500 Adam epochs here, and it keeps the MLP from memorising small folds). It scores by P(y = 1).
    """
    return StandardizedProbe(
        MLPClassifier(hidden_layer_sizes=(hidden,), alpha=alpha, max_iter=300, early_stopping=True, random_state=seed)
    )


LEARNED_PROBES: tuple[str, ...] = ("linear", "rbf_svm", "mlp")


def make_probe(name: str, seed: int = 0) -> StandardizedProbe:
    """The learned probe called ``name`` (E10: linear, rbf_svm or mlp); ``seed`` seeds the MLP only."""
    if name == "linear":
        return linear_probe()
    if name == "rbf_svm":
        return rbf_svm_probe()
    if name == "mlp":
        return mlp_probe(seed=int(seed) % 2**31)
    raise ValueError(f"probe={name!r} is unknown; allowed: {', '.join(LEARNED_PROBES)}")


class _FixedScorer(ClassifierMixin, BaseEstimator):
    """A scorer that learns nothing: ``fit`` only records the classes."""

    def fit(self, X, y):
        X, y = validate_data(self, X, y)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class OracleProbe(_FixedScorer):
    """Scores by the true discriminant direction: wᵀx (the Bayes-optimal linear rule)."""

    def __init__(self, direction=None):
        self.direction = direction

    def decision_function(self, X):
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, reset=False)
        return X @ np.asarray(self.direction, dtype=float)


class GeodesicOracle(_FixedScorer):
    """Projects onto the true sphere and scores by true geodesic distances (Sec. VI-K).

    For :func:`lib.bias_probes.synth.sphere_clusters`: the centres lie on the circle of radius 1/√κ in the first
    two coordinates at angles ±√κ·r/2 from the second axis. The score is
    d_geo(x, c₋) − d_geo(x, c₊) after projecting x radially onto that circle.
    """

    def __init__(self, kappa: float = 1.0, r: float = 1.0):
        self.kappa = kappa
        self.r = r

    def decision_function(self, X):
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, reset=False)
        angle = np.arctan2(X[:, 0], X[:, 1])
        half = np.sqrt(self.kappa) * self.r / 2
        radius = 1 / np.sqrt(self.kappa)

        def geodesic(a, b):
            gap = np.abs(a - b) % (2 * np.pi)
            return radius * np.minimum(gap, 2 * np.pi - gap)

        return geodesic(angle, -half) - geodesic(angle, half)


def grouped_folds(groups: np.ndarray, n_splits: int = 5, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """Grouped k-fold: groups (context cells; pair members share one) are shuffled and dealt to folds.

    Not scikit-learn's ``GroupKFold(shuffle=True)`` / ``StratifiedGroupKFold``: dealing shuffled groups
    round-robin is the same design, and here it is ~50× cheaper than ``StratifiedGroupKFold`` (47 ms
    per split set, ten times the probe fits), in the inner loop of E02, E09 and the phase diagrams.
    """
    _, group_index = np.unique(np.asarray(groups), return_inverse=True)
    n_groups = group_index.max() + 1
    if n_groups < n_splits:
        raise ValueError(f"{n_groups} groups cannot fill n_splits={n_splits} folds")
    fold_of_group = np.empty(n_groups, dtype=int)
    fold_of_group[np.random.default_rng(seed).permutation(n_groups)] = np.arange(n_groups) % n_splits
    fold = fold_of_group[group_index]
    return [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(n_splits)]


def oof_scores(estimator, X: np.ndarray, y: np.ndarray, folds: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Pooled out-of-fold scores: each text scored by the probe fitted on the other folds.

    The first fold's fit and scoring run scikit-learn's checks, which cover every row of ``X`` and the estimator's
    parameters; the other folds skip them (``assume_finite``, ``skip_parameter_validation``). The same scores, about
    a tenth faster at E09's size, where a fit takes a few milliseconds and the checks were the largest part of it.
    """
    scores = np.empty(len(y))
    for index, (train, test) in enumerate(folds):
        with config_context(assume_finite=index > 0, skip_parameter_validation=index > 0):
            scores[test] = clone(estimator).fit(X[train], y[train]).decision_function(X[test])
    return scores


@dataclass(frozen=True)
class ProbeResult:
    """Per-seed pooled out-of-fold AUCs, their summary, and the detection test on their mean."""

    aucs: tuple[float, ...]
    auc_mean: float
    auc_sd: float
    auc_min: float
    auc_max: float
    n_pos: int
    n_neg: int
    detection: stats.Detection

    def as_row(self) -> dict:
        """Flat mapping for a results table (raw AUC and n kept for any recalibration)."""
        row = {k: v for k, v in asdict(self).items() if k not in ("aucs", "detection")}
        test = {k: v for k, v in asdict(self.detection).items() if k not in ("auc", "n_pos", "n_neg")}
        row.update({f"detection_{k}": v for k, v in test.items()})
        return row


def probe_auc(
    X: np.ndarray,
    y: np.ndarray,
    groups: np.ndarray,
    estimator=None,
    *,
    n_seeds: int = 5,
    n_splits: int = 5,
    seed: int = 0,
    null_multiplier: float = stats.DETECTION_NULL_MULTIPLIER,
    level: float = 0.05,
) -> ProbeResult:
    """The paper's protocol: grouped k-fold × seeds, pooled OOF AUC per seed, detection test.

    ``estimator`` defaults to :func:`linear_probe`. Seeds re-split the same sample; the test is
    on their average against ``null_multiplier``·σ₀ (Sec. V-E).
    """
    X, y, groups = np.asarray(X, dtype=float), np.asarray(y).astype(int), np.asarray(groups)
    if not (len(X) == len(y) == len(groups)):
        raise ValueError(f"X, y and groups have {len(X)}, {len(y)} and {len(groups)} rows; they must agree")
    if set(np.unique(y)) != {0, 1}:
        raise ValueError(f"y must hold both classes 0 and 1, got {np.unique(y)}")
    if n_seeds < 1 or n_splits < 2:
        raise ValueError(f"need n_seeds >= 1 and n_splits >= 2; got {n_seeds}, {n_splits}")
    estimator = linear_probe() if estimator is None else estimator
    aucs = np.array([
        stats.auroc(y, oof_scores(estimator, X, y, grouped_folds(groups, n_splits, split_seed)))
        for split_seed in parallel.spawn_seeds(seed, n_seeds)
    ])
    n_pos = int(y.sum())
    return ProbeResult(
        aucs=tuple(float(a) for a in aucs), auc_mean=float(aucs.mean()),
        auc_sd=float(aucs.std(ddof=1)) if n_seeds > 1 else 0.0,
        auc_min=float(aucs.min()), auc_max=float(aucs.max()), n_pos=n_pos, n_neg=len(y) - n_pos,
        detection=stats.detection_test(aucs.mean(), n_pos, len(y) - n_pos, null_multiplier, level),
    )
