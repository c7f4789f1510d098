"""lib.bias_probes.neutral_leakage (E11): WinoBias matching, leaky relabelling, held-out scores, on MiniLM features."""

import numpy as np
import pytest

from lib import probes, stats
from lib.bias_probes import model_audit, neutral_leakage, purity


@pytest.fixture(scope="module")
def gender():
    return neutral_leakage.gender_pools(["minilm"])["minilm"]


@pytest.fixture(scope="module")
def stereotype():
    return neutral_leakage.dimension_rows("gender").stereotype.to_numpy()


@pytest.fixture(scope="module")
def content():
    return neutral_leakage.dimension_rows("gender").content_id.to_numpy()


def test_winobias_matches_professions_by_phrase_or_head_word():
    table = neutral_leakage.profession_stereotypes()
    assert len(table) == 44 and not (table.male & table.female).any()
    code = table.set_index("profession").stereotype
    assert code["nurse"] == neutral_leakage.FEMALE and code["mechanic"] == neutral_leakage.MALE
    assert code["bus driver"] == neutral_leakage.MALE  # head word "driver"
    assert code["flight attendant"] == neutral_leakage.FEMALE  # head word "attendant"
    assert code["pilot"] == neutral_leakage.UNMATCHED and code["police officer"] == neutral_leakage.UNMATCHED
    assert (table.male.sum(), table.female.sum()) == (10, 15)


def test_dimension_rows_code_only_neutral_profession_texts(stereotype):
    rows = neutral_leakage.dimension_rows("gender")
    assert len(rows) == 1360 and (rows.stereotype[rows.marked] == neutral_leakage.UNMATCHED).all()
    # 5 frames × 2 neutral heads per matched profession
    assert (stereotype == neutral_leakage.FEMALE).sum() == 150 and (stereotype == neutral_leakage.MALE).sum() == 100
    assert rows.content_id.nunique() == 84  # 44 professions + 20 traits + 20 activities


@pytest.mark.parametrize("leak", [0.25, 0.5, 0.8])
def test_leaky_sample_relabels_exactly_the_requested_share(gender, stereotype, content, leak):
    n, alpha = 300, 0.3
    sample = neutral_leakage.draw_leaky_sample(np.random.default_rng(5), gender, stereotype, content, n, alpha, leak)
    base = purity.draw_purity_sample(np.random.default_rng(5), gender, n, alpha)
    n_neutral = n - 2 * int(round(alpha * n / 2))
    assert sample.leaky.sum() == 2 * int(round(leak * n_neutral / 2)) and not sample.short
    assert sample.leak_realised == pytest.approx(leak, abs=1 / n_neutral)
    codes = stereotype[sample.index]
    assert np.array_equal(sample.y[sample.leaky], codes[sample.leaky])  # female → 1, male → 0
    assert (codes[sample.leaky] == 1).sum() == (codes[sample.leaky] == 0).sum()
    marked = gender.marked[sample.index]
    assert np.array_equal(sample.index[marked], base.index[gender.marked[base.index]])  # marked part is E02's
    assert len(np.unique(sample.index)) == n and sample.y.sum() == n // 2
    assert np.array_equal(sample.groups, content[sample.index])  # grouped by profession, not by context cell
    leaky_groups = np.unique(sample.groups[sample.leaky])
    assert all(len(set(sample.y[sample.leaky & (sample.groups == g)])) == 1 for g in leaky_groups)


def test_leak_zero_is_the_purity_draw_and_a_short_pool_says_so(gender, stereotype, content):
    sample = neutral_leakage.draw_leaky_sample(np.random.default_rng(2), gender, stereotype, content, 300, 0.3, 0.0)
    base = purity.draw_purity_sample(np.random.default_rng(2), gender, 300, 0.3)
    assert np.array_equal(sample.index, base.index) and np.array_equal(sample.y, base.y) and not sample.leaky.any()
    short = neutral_leakage.draw_leaky_sample(np.random.default_rng(2), gender, stereotype, content, 300, 0.1, 1.0)
    assert short.short and short.leaky.sum() == 200  # only 100 male-stereotyped neutral texts exist
    assert short.leak_realised == pytest.approx(200 / 270)


def test_neutral_only_auc_is_near_half(gender):
    frame = neutral_leakage.neutral_independence({("minilm", "gender"): gender}, probes.LEARNED_PROBES, draws=1,
                                                 n_seeds=2, seed=3)
    assert list(frame.probe) == list(probes.LEARNED_PROBES) and (frame.n == 680).all()
    assert (frame.auc_mean - 0.5).abs().max() < 0.1 and not frame.detection_detected.any()


def test_held_out_scores_never_use_the_scored_cell():
    """Neutral rows copy a marked row of their own cell; the marked features are pure noise, so only a
    probe that trained on the copied row could tell which group it copies."""
    rng = np.random.default_rng(0)
    n_cells, d = 100, 150
    cell = np.repeat(np.arange(n_cells), 3)
    slot = np.tile(np.arange(3), n_cells)
    pool = purity.Pool(X=rng.standard_normal((len(cell), d)), cell=cell, pair=np.where(slot < 2, cell, -1),
                      group=np.where(slot < 2, slot, -1))
    copied = np.arange(n_cells) % 2  # the neutral row of cell c copies its group (c mod 2) member
    pool.X[slot == 2] = pool.X[3 * np.arange(n_cells) + copied]
    neutral = slot == 2
    held_out = neutral_leakage.held_out_scores(pool, cell, n_seeds=2, seed=1)
    assert abs(stats.auroc(copied, held_out[neutral]) - 0.5) < 0.2
    in_sample = probes.linear_probe().fit(pool.X[slot < 2], pool.group[slot < 2])
    assert stats.auroc(copied, in_sample.decision_function(pool.X[neutral])) > 0.95  # what leakage would give


def test_stereotype_scores_and_summary(gender):
    scores = neutral_leakage.stereotype_scores({"minilm": gender}, n_seeds=2, seed=0)
    assert len(scores) == 1360 and np.isfinite(scores.score).all()
    summary = neutral_leakage.stereotype_summary(scores, n_permutations=200, seed=0).iloc[0]
    assert (summary.n_female_professions, summary.n_male_professions) == (15, 10)
    assert (summary.n_female_texts, summary.n_male_texts) == (150, 100)
    assert summary.marked_auc > 0.95 and 0 <= summary.auc <= 1 and 1 / 201 <= summary.perm_p <= 1


def test_permutation_null_keeps_professions_whole():
    labels = np.repeat([1, 1, 0, 0, 0], 4)
    null = neutral_leakage.profession_permutation_aucs(labels, np.arange(20.0), np.repeat(np.arange(5), 4), 500, 0)
    assert set(np.round(null, 6)) <= {round(a, 6) for a in _cluster_aucs()} and abs(null.mean() - 0.5) < 0.05
    with pytest.raises(ValueError, match="constant within each cluster"):
        neutral_leakage.profession_permutation_aucs(np.arange(20) % 2, np.arange(20.0), np.repeat(np.arange(5), 4),
                                                    10, 0)


def _cluster_aucs() -> list[float]:
    """Every AUC reachable when 2 of 5 ordered clusters of 4 are positive (scores 0..19)."""
    from itertools import combinations

    out = []
    for chosen in combinations(range(5), 2):
        y = np.isin(np.repeat(np.arange(5), 4), chosen)
        out.append(float(stats.auroc(y, np.arange(20.0))))
    return out


def test_leaky_purity_gains_with_leak_and_reports_eq8(gender):
    frame = neutral_leakage.leaky_purity({"minilm": gender}, [0.5], [0.0, 1.0], n=100, draws=2, n_seeds=2, seed=0)
    assert {"auc", "predicted_auc", "excess", "s_hat", "leak_realised", "short"} <= set(frame.columns)
    by_leak = frame.set_index("leak")
    assert by_leak.auc[1.0] > by_leak.auc[0.0] + 0.05  # stereotype-labelled neutrals carry label information
    s_hat = model_audit.separation_and_offset(gender, 0)["s_hat"]
    assert frame.s_hat.iloc[0] == pytest.approx(s_hat)
