"""lib.bias_shift.deltab: SEAT, relative representations, ΔB and the baselines of paper 001 (Eq. 1–7, Sec. 4.5)."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.stats import ortho_group

from lib.bias_shift import deltab


def _model(rng, d=16, n_t=12, n_attr=10, n_anchor=40):
    return {"targets": {"a": rng.normal(size=(n_t, d)), "b": rng.normal(size=(n_t, d))},
            "positive": rng.normal(size=(n_attr, d)) + 1.0, "negative": rng.normal(size=(n_attr, d)) - 1.0,
            "anchors": rng.normal(size=(n_anchor, d))}


def _transform(model, f):
    return {k: ({g: f(v) for g, v in e.items()} if k == "targets" else f(e)) for k, e in model.items()}


def test_seat_bias_by_hand():
    E_t = np.array([[1.0, 0.0]])
    E_p = np.array([[1.0, 0.0], [0.0, 1.0]])  # cos 1 and 0: S+ = 0.5
    E_n = np.array([[-1.0, 0.0]])  # cos −1: S− = −1
    assert deltab.seat_bias(E_t, E_p, E_n) == pytest.approx(1.5)


def test_rel_bias_by_hand_and_sign():
    R_t = np.array([[0.0, 0.0]])
    R_p = np.array([[1.0, 0.0]])  # distance 1 → S+ = −1
    R_n = np.array([[3.0, 4.0]])  # distance 5 → S− = −5
    assert deltab.rel_bias(R_t, R_p, R_n) == pytest.approx(4.0)  # closer to the positive set: positive bias


def test_relative_representations_are_invariant_to_rotation_and_scale():
    """RR under a rotation of the embedding space (Sec. 3.3): the coordinates do not move."""
    rng = np.random.default_rng(0)
    model = _model(rng)
    rotation = ortho_group.rvs(16, random_state=1)
    moved = _transform(model, lambda e: 3.0 * e @ rotation)
    np.testing.assert_allclose(deltab.relative(moved["targets"]["a"], moved["anchors"]),
                               deltab.relative(model["targets"]["a"], model["anchors"]), atol=1e-12)
    assert max(abs(v) for v in deltab.rr_delta_b(model, moved).values()) < 1e-12
    assert max(abs(v) for v in deltab.seat_delta_b(model, moved).values()) < 1e-12


def test_delta_b_sees_a_group_moving_toward_the_negative_set():
    rng = np.random.default_rng(2)
    reference = _model(rng)
    shifted = reference["targets"]["a"] + 0.8 * reference["negative"].mean(axis=0)
    audited = {**reference, "targets": {**reference["targets"], "a": shifted}}
    rr, seat = deltab.rr_delta_b(reference, audited), deltab.seat_delta_b(reference, audited)
    assert rr["a"] < 0 and seat["a"] < 0 and rr["b"] == 0.0
    with pytest.raises(ValueError, match="target groups differ"):
        deltab.rr_delta_b(reference, {**audited, "targets": {"a": shifted}})
    assert deltab.delta_b(0.2, 0.5) == pytest.approx(-0.3)


def test_procrustes_recovers_a_rotated_copy():
    rng = np.random.default_rng(3)
    reference = _model(rng)
    rotation = ortho_group.rvs(16, random_state=4)
    audited = _transform(reference, lambda e: e @ rotation)
    assert max(abs(v) for v in deltab.procrustes_seat_delta_b(reference, audited).values()) < 1e-9
    assert max(deltab.cka_drift_by_group(reference, audited).values()) < 1e-9
    with pytest.raises(ValueError, match="must agree"):
        deltab.procrustes_seat_delta_b(reference, {**audited, "anchors": audited["anchors"][:5]})


def test_cka_invariances_and_range():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 8))
    rotation = ortho_group.rvs(8, random_state=6)
    assert deltab.linear_cka(X, X) == pytest.approx(1.0)
    assert deltab.linear_cka(X, 2.5 * X @ rotation + 7.0) == pytest.approx(1.0)  # rotation, scale, shift
    unrelated = deltab.linear_cka(X, rng.normal(size=(50, 8)))
    assert 0.0 <= unrelated < 0.5
    assert deltab.cka_drift(X, X) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="same sentences"):
        deltab.linear_cka(X, X[:10])


def test_bad_input_is_named():
    with pytest.raises(ValueError, match=r"A has shape \(3,\)"):
        deltab.cosine_matrix(np.zeros(3), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="columns; they must agree"):
        deltab.seat_bias(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 3)))


def test_decomposition_attributes_only_and_targets_only():
    rng = np.random.default_rng(7)
    reference = _model(rng)
    moved_attributes = {**reference, "negative": reference["negative"] + 0.7, "positive": reference["positive"] - 0.2}
    parts, shift = deltab.rr_decomposition(reference, moved_attributes), deltab.rr_delta_b(reference, moved_attributes)
    for g in ("a", "b"):
        assert parts[g]["targets_only"] == 0.0 and parts[g]["attributes_only"] == pytest.approx(shift[g])
        assert shift[g] != 0.0  # the attributes moved: every group shifts though no target did
    moved_targets = {**reference, "targets": {**reference["targets"], "a": reference["targets"]["a"] + 0.5}}
    parts, shift = deltab.rr_decomposition(reference, moved_targets), deltab.rr_delta_b(reference, moved_targets)
    assert parts["a"]["attributes_only"] == 0.0 and parts["a"]["targets_only"] == pytest.approx(shift["a"])
    assert parts["b"] == {"targets_only": 0.0, "attributes_only": 0.0}


def test_control_delta_b_is_the_shift_of_the_group_free_targets():
    rng = np.random.default_rng(8)
    reference = _model(rng) | {"control": rng.normal(size=(12, 16))}
    audited = {**reference, "negative": reference["negative"] + 0.5}
    as_group = {**reference, "targets": {**reference["targets"], "a": reference["control"]}}
    audited_as_group = {**audited, "targets": {**audited["targets"], "a": audited["control"]}}
    expected = deltab.rr_delta_b(as_group, audited_as_group)["a"]
    assert deltab.control_delta_b(reference, audited) == pytest.approx(expected)
    assert deltab.control_delta_b(reference, reference) == 0.0
    with pytest.raises(ValueError, match="'control' embeddings"):
        deltab.control_delta_b(_model(rng), audited)


def _rotated_pair(d: int, m: int, seed: int = 11) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    reference = _model(rng, d=d, n_anchor=m)
    return reference, _transform(reference, lambda e: e @ ortho_group.rvs(d, random_state=seed + 1))


def test_procrustes_full_refuses_when_the_anchors_do_not_determine_the_map():
    reference, audited = _rotated_pair(d=64, m=40)
    targets = np.vstack(list(audited["targets"].values()))
    rank, share = deltab.procrustes_determination(audited["anchors"], reference["anchors"], targets)
    assert rank == 40 and share > 0.3  # random targets: about √(24/64) of their norm lies off the anchors' span
    with pytest.raises(ValueError, match=r"40 anchors .* width 64.*procrustes='span'.*at least 64 anchors"):
        deltab.procrustes_seat_delta_b(reference, audited, procrustes="full")
    with pytest.raises(ValueError, match="procrustes='affine' is not supported"):
        deltab.procrustes_seat_delta_b(reference, audited, procrustes="affine")


def test_procrustes_span_form_gives_zero_under_an_exact_rotation_with_fewer_anchors_than_dimensions():
    reference, audited = _rotated_pair(d=64, m=40)
    span = deltab.procrustes_seat_delta_b(reference, audited, procrustes="span")
    assert max(abs(v) for v in span.values()) < 1e-8
    with pytest.warns(UserWarning, match=r"40 anchors .* width 64.*using the span form"):
        default = deltab.procrustes_seat_delta_b(reference, audited)  # "auto": the span form, warned
    assert default == span


def test_procrustes_full_and_span_agree_with_more_anchors_than_dimensions():
    rng = np.random.default_rng(13)
    reference = _model(rng, d=16, n_anchor=40)
    mixing = rng.normal(size=(16, 16))
    audited = _transform(reference, lambda e: np.tanh(e @ mixing / 4.0))  # not a rotation
    full = deltab.procrustes_seat_delta_b(reference, audited, procrustes="full")
    span = deltab.procrustes_seat_delta_b(reference, audited, procrustes="span")
    assert max(abs(v) for v in full.values()) > 1e-3
    for g in full:
        assert span[g] == pytest.approx(full[g], abs=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        default = deltab.procrustes_seat_delta_b(reference, audited)  # "auto": the full form, no warning
    assert default == pytest.approx(full, abs=1e-12)


def test_procrustes_full_accepts_rank_deficient_anchors_when_the_targets_lie_in_their_span():
    """Dead features (a column zero in every sentence) lower the rank but leave the map fixed where it is applied."""
    reference, audited = _rotated_pair(d=16, m=40)
    reference = _transform(reference, lambda e: np.hstack([e, np.zeros((len(e), 2))]))
    audited = _transform(audited, lambda e: np.hstack([np.zeros((len(e), 2)), e]))
    rank, share = deltab.procrustes_determination(audited["anchors"], reference["anchors"], audited["targets"]["a"])
    assert rank == 16 and share < 1e-12
    full = deltab.procrustes_seat_delta_b(reference, audited, procrustes="full")
    span = deltab.procrustes_seat_delta_b(reference, audited, procrustes="span")
    assert max(abs(v) for v in [*full.values(), *span.values()]) < 1e-9


def _hsic_song(K: np.ndarray, L: np.ndarray) -> float:
    """HSIC_1 of Song et al. (2012, Eq. 5) from the zero-diagonal Gram matrices, term by term."""
    n = K.shape[0]
    K, L = K - np.diag(np.diag(K)), L - np.diag(np.diag(L))
    one = np.ones(n)
    return float((np.trace(K @ L) + (one @ K @ one) * (one @ L @ one) / ((n - 1) * (n - 2))
                  - 2.0 / (n - 2) * one @ K @ L @ one) / (n * (n - 3)))


def _hsic_u_statistic(K: np.ndarray, L: np.ndarray) -> float:
    """HSIC as the order-4 U-statistic: the mean over distinct (i, j, q, r) of k_ij l_ij + k_ij l_qr − 2 k_ij l_iq."""
    total, count = 0.0, 0
    for i, j, q, r in itertools.permutations(range(K.shape[0]), 4):
        total += K[i, j] * L[i, j] + K[i, j] * L[q, r] - 2.0 * K[i, j] * L[i, q]
        count += 1
    return total / count


def test_debiased_cka_equals_the_u_statistic_by_hand():
    rng = np.random.default_rng(17)
    X, Y = rng.normal(size=(8, 3)), rng.normal(size=(8, 5))
    X[:, 0] += Y[:, 0]  # some shared signal
    K, L = X @ X.T, Y @ Y.T
    for hsic in (_hsic_song, _hsic_u_statistic):
        expected = hsic(K, L) / np.sqrt(hsic(K, K) * hsic(L, L))
        assert deltab.linear_cka(X, Y, debiased=True) == pytest.approx(expected, rel=1e-10)
    assert _hsic_song(K, L) == pytest.approx(_hsic_u_statistic(K, L), rel=1e-10)
    with pytest.raises(ValueError, match="at least 4 rows"):
        deltab.linear_cka(X[:3], Y[:3], debiased=True)


@pytest.mark.parametrize("d", [64, 576])
def test_debiased_cka_of_independent_data_is_near_zero_at_any_width(d):
    rng = np.random.default_rng(d)
    X, Y = rng.normal(size=(200, d)), rng.normal(size=(200, d))
    assert abs(deltab.linear_cka(X, Y, debiased=True)) < 0.05
    assert deltab.linear_cka(X, Y) > 0.2  # the biased zero point: ≈ 0.25 at d = 64, ≈ 0.74 at d = 576
    rotation = ortho_group.rvs(d, random_state=1)
    for debiased in (False, True):
        assert deltab.linear_cka(X, X, debiased=debiased) == pytest.approx(1.0)
        assert deltab.linear_cka(X, 2.0 * X @ rotation + 3.0, debiased=debiased) == pytest.approx(1.0)
        assert deltab.cka_drift(X, X, debiased=debiased) == pytest.approx(0.0, abs=1e-12)
    model = {"targets": {"a": X}}
    assert deltab.cka_drift_by_group(model, {"targets": {"a": Y}}, debiased=True)["a"] == pytest.approx(
        1.0 - deltab.linear_cka(X, Y, debiased=True))
