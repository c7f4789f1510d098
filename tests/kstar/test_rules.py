"""lib.kstar.protocol.rules: paper 002's threshold, counts, window and precision (App. A.1.1, A.1.6–A.1.8) — worked
examples, Lemma 1 (ii)–(iv), Lemma 2 and Proposition 2.

The statements of Lemma 1 and Proposition 2 were lost in the text extraction; the tests state them as their
proofs in the paper establish them:

- Lemma 1 (A.1.6). (ii) for C > ½ the local count is non-decreasing in the factor α of τ = ½ + α(C − ½);
  (iii) for m ≥ 2 window blocks, k₍₂₎ ≤ k̃ ≤ k₍ₘ₎; (iv) k̃ and the task value are non-decreasing in every
  local count (so, with (ii), in α). Part (i) needs real searches: tests/kstar/test_probe_search.py.
- Proposition 2 (A.1.8). If |Â(g) − Ā(g)| ≤ ε for every scorer, k̄(τ̄ − 1.95ε) ≤ k̂(τ̂) ≤ k̄(τ̄ + 1.95ε).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from lib import stats
from lib.kstar import interventions
from lib.kstar.protocol import counts
from lib.kstar.protocol import rules as R
from lib.kstar.protocol.probe_search import Candidate

INF = math.inf
FAST = settings(max_examples=25, deadline=None, derandomize=True)


def cand(size: int, auroc: float, path: str = "prefix") -> Candidate:
    return Candidate(path, size, tuple(range(size)), auroc, 1.0)


# --- A.1.1 threshold, A.1.7 worked example, A.1.6 conventions -------------------------------------


def test_threshold_matches_the_papers_examples():
    assert R.threshold(0.98) == pytest.approx(0.956, abs=1e-12)
    assert R.threshold(0.90) == pytest.approx(0.88, abs=1e-12)
    # A.1.7: 0.5 + 0.95 × 0.4790 = 0.95505, printed 0.9551
    assert R.threshold(0.9790) == pytest.approx(0.95505, abs=1e-12)
    assert R.threshold(0.8, frac=1.0) == pytest.approx(0.8)


@pytest.mark.parametrize("ceiling, frac", [(1.01, 0.95), (-0.1, 0.95), (math.nan, 0.95), (0.9, 0.0), (0.9, 1.2)])
def test_threshold_rejects_values_out_of_range(ceiling, frac):
    with pytest.raises(ValueError, match="out of range"):
        R.threshold(ceiling, frac)


def test_worked_example_of_a17():
    tau = R.threshold(0.9790)
    layer_counts_seed1 = [341, 137, 342, 369]  # layers 17, 20, 24, 28
    assert R.neighbor_confirm(layer_counts_seed1) == 341
    seeds = {1: [341], 2: [332], 3: [342], 4: [344], 5: [339]}
    assert R.task_value(seeds) == 341
    assert R.seed_range(seeds) == (332, 344)
    assert R.task_value([341, 332, 342, 344, 339]) == 341  # one decision per seed, given flat
    # the support attaining the count is the L1 support, smaller than any qualifying prefix
    curve = [cand(256, 0.950), cand(512, 0.9600), cand(341, 0.9560, "l1"), cand(137, 0.9402, "l1")]
    assert R.local_count(curve, tau) == (341, tuple(range(341)))


def test_neighbor_confirmation_drops_an_isolated_minimum():
    assert R.neighbor_confirm([32, 8, 16, INF]) == 16
    assert R.neighbor_confirm([INF, INF]) == INF
    assert R.neighbor_confirm([8, INF, 4]) == INF
    assert R.neighbor_confirm([7]) == 7  # one block: its own count (A.1.6)


@pytest.mark.parametrize("bad", [[], [0, 3], [-1], [math.nan, 2], [True, 3]])
def test_counts_must_be_positive_and_present(bad):
    with pytest.raises(ValueError):
        R.neighbor_confirm(bad)
    with pytest.raises(ValueError):
        R.ext_median(bad)


def test_ext_median_conventions():
    assert R.ext_median([1, INF, INF]) == INF  # odd: more than half infinite
    assert R.ext_median([1, 2, INF]) == 2
    assert R.ext_median([1, 2, INF, INF]) == INF  # even: at least half infinite
    assert R.ext_median([1, 2, 3, INF]) == 2.5  # unrounded
    assert R.ext_median([1, 2]) == 1.5
    assert R.ext_median([4, 6]) == 5 and isinstance(R.ext_median([4, 6]), int)
    assert R.ext_median([INF]) == INF
    assert R.ext_median([9, 1, 5]) == 5


def test_task_value_takes_medians_over_decisions_then_seeds():
    counts = [[4, 8, INF], [2, 16, 32], [INF, INF, 1]]  # seeds × decisions
    assert R.seed_values(counts) == (8, 16, INF)
    assert R.task_value(counts) == 16
    assert R.seed_range(counts) == (8, INF)
    with pytest.raises(ValueError):
        R.task_value([])


def test_local_count_qualifies_at_equality_and_breaks_size_ties():
    curve = [cand(4, 0.90), cand(4, 0.93, "l1"), cand(8, 0.99), cand(2, 0.80)]
    assert R.local_count(curve, 0.90) == (4, tuple(range(4)))
    count, support = R.local_count([cand(4, 0.90), Candidate("l1", 4, (5, 6, 7, 9), 0.93, 3.0)], 0.90)
    assert (count, support) == (4, (5, 6, 7, 9))  # same size: the larger AUROC supplies the support
    tie = [Candidate("prefix", 2, (0, 1), 0.9, 1.0), Candidate("l1", 2, (3, 4), 0.9, 1.0)]
    assert R.local_count(tie, 0.9)[1] == (0, 1)  # equal AUROC: the first recorded
    assert R.local_count(curve, 0.995) == (INF, None)
    with pytest.raises(ValueError):
        R.local_count(curve, math.nan)


TAU = 0.875  #: exact in binary, so an AUROC can sit exactly at τ
BELOW = float(np.nextafter(TAU, 0.0))
#: (block, seed) → candidates (path, size, AUROC): ties at exactly τ, AUROCs one ulp below it, an L1 support as small
#: as a qualifying prefix, and block 2's count 2 at seed 1 an isolated minimum its neighbours do not confirm.
LOGGED = {
    (1, 1): [("prefix", 2, BELOW), ("prefix", 4, TAU), ("l1", 3, 0.80)],
    (2, 1): [("prefix", 1, 0.60), ("prefix", 2, 0.90), ("l1", 2, TAU)],
    (3, 1): [("prefix", 16, 0.95), ("l1", 5, BELOW)],
    (1, 2): [("prefix", 4, BELOW), ("l1", 6, 0.70)],
    (2, 2): [("l1", 2, TAU), ("prefix", 8, 0.99)],
    (3, 2): [("prefix", 16, TAU), ("prefix", 32, 0.99)],
}


def _logged_rows() -> pd.DataFrame:
    """LOGGED as the tidy rows of lib.kstar.measure.run_searches, with a dense row per search that would qualify at
    size 1 if it were read as a candidate (it is not: A.1.5, Eq. 13)."""
    labels = {"model": "m", "task": "t", "decision": "yes", "n_test_pos": 50, "n_test_neg": 50}
    rows = []
    for (block, seed), candidates in LOGGED.items():
        rows.append({**labels, "block": block, "seed": seed, "path": "dense", "size": 1, "auroc": 0.99})
        rows += [{**labels, "block": block, "seed": seed, "path": path, "size": size, "auroc": auroc}
                 for path, size, auroc in candidates]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("strict", [False, True], ids=["eq5", "strict"])
def test_every_count_reads_the_one_qualifying_rule(monkeypatch, strict):
    """Eq. 5 on arrays (local_count), on logged rows (logged_local_counts, counts.local_counts) and in the
    interventions' one-block counts agree — also, with ``strict``, after the rule itself is changed to AUROC > τ,
    which only a caller that routes through rules.qualifies follows."""
    if strict:
        monkeypatch.setattr(R, "qualifies", np.greater)
    arrays = {key: R.local_count([Candidate(p, k, tuple(range(k)), a, 1.0) for p, k, a in cands], TAU)[0]
              for key, cands in LOGGED.items()}
    expected = ({(1, 1): INF, (2, 1): 2, (3, 1): 16, (1, 2): INF, (2, 2): 8, (3, 2): 32} if strict else
                {(1, 1): 4, (2, 1): 2, (3, 1): 16, (1, 2): INF, (2, 2): 2, (3, 2): 16})
    assert arrays == expected
    rows = _logged_rows()
    assert R.logged_local_counts(rows, TAU, ["block", "seed"]).to_dict() == arrays
    thresholds = pd.DataFrame({"model": ["m"], "task": ["t"], "decision": ["yes"], "tau": [TAU]})
    local = counts.local_counts(rows, thresholds)
    assert local.set_index(["block", "seed"])["count"].to_dict() == arrays
    confirmed = counts.confirmed_counts(local).set_index("seed").confirmed.to_dict()
    assert confirmed == {seed: R.neighbor_confirm([arrays[(b, seed)] for b in (1, 2, 3)]) for seed in (1, 2)}
    if not strict:
        assert confirmed == {1: 4, 2: 16}  # block 2's 2 at seed 1 is not confirmed by blocks 1 (4) or 3 (16)
    for block in (1, 2, 3):
        _, count = interventions._ceiling_count(rows[rows.block == block], TAU)
        assert count == R.ext_median([arrays[(block, seed)] for seed in (1, 2)])


# --- Algorithm 2 (A.1.6): window, best block, flag ----------------------------------------------------


def test_window_brackets_the_best_block_and_shifts_inward_at_edges():
    grid = [3, 7, 11, 15, 19, 23, 27]
    assert R.window(grid, 11) == (7, 11, 15, 19)  # best second: one before, two after
    assert R.window([5, 9, 13, 17, 20, 24, 28, 31], 20) == (17, 20, 24, 28)  # the A.1.7 window
    assert R.window(grid, 3) == (3, 7, 11, 15)
    assert R.window(grid, 27) == (15, 19, 23, 27)
    assert R.window(grid, 23) == (15, 19, 23, 27)  # neighbours on both sides, best third
    assert R.window([1, 2, 3], 2) == (1, 2, 3)
    with pytest.raises(ValueError, match="not in the grid"):
        R.window(grid, 12)


def test_best_block_smallest_median_count_ties_to_larger_dense_auroc():
    local = {3: [64, 8, INF], 7: [16, 16, 32], 11: [16, 4, 64], 15: [INF, INF, 2]}
    dense = {3: 0.95, 7: 0.96, 11: [0.97, 0.96, 0.98], 15: 0.99}
    assert R.best_block(local, dense) == 11  # medians 64, 16, 16, ∞; tie 7 vs 11 → larger dense AUROC
    assert R.best_block({1: [4], 2: [4]}, {1: 0.9, 2: 0.9}) == 1
    with pytest.raises(ValueError, match="lacks"):
        R.best_block(local, {3: 0.9})


def test_readability_flag_at_the_cutoff():
    assert R.readability_flag(0.90) and not R.readability_flag(0.9001)


# --- A.1.8 precision ---------------------------------------------------------------------------------


def test_ceiling_standard_error_and_gap_of_the_worked_example():
    assert round(R.ceiling_se(0.979, 1039, 961), 4) == 0.0032
    assert R.threshold_gap(0.979) == pytest.approx(0.02395)  # "a gap of 0.024 AUROC"


def test_mcdiarmid_radius_at_the_papers_settings():
    n_scorers = 4 * 5 * 22  # window blocks × seeds × (1 dense + 11 prefixes + 10 L1)
    assert n_scorers == 440
    assert round(R.mcdiarmid_radius(1500, 1500, n_scorers, delta=0.05), 2) == 0.08
    # "0.36 at the median class decision, where the rarer test class holds 40 texts" (n₀ = 960 assumed)
    assert round(R.mcdiarmid_radius(40, 960, n_scorers, delta=0.05), 2) == 0.36
    assert R.mcdiarmid_radius(1500, 1500, 4400) > R.mcdiarmid_radius(1500, 1500, 440)
    with pytest.raises(ValueError):
        R.mcdiarmid_radius(0, 10, 440)


def test_mcdiarmid_radius_covers_the_simulated_deviation():
    """Lemma 2 by simulation: scores of M = 20 fixed scorers on fresh test splits stay within ε_δ."""
    rng = np.random.default_rng(0)
    n1, n0, m, delta = 30, 30, 20, 0.2
    eps = R.mcdiarmid_radius(n1, n0, m, delta)
    shifts = np.linspace(0, 1.5, m)[:, None]
    misses = 0
    for _ in range(200):
        pos, neg = rng.standard_normal((m, n1)) + shifts, rng.standard_normal((m, n0))
        a_hat = stats.auroc(np.r_[np.ones(n1), np.zeros(n0)], np.concatenate([pos, neg], axis=1))
        a_bar = norm.cdf(shifts.ravel() / math.sqrt(2))
        misses += np.max(np.abs(a_hat - a_bar)) > eps
    assert misses / 200 <= delta


def test_proposition_2_brackets_empirical_and_population_counts():
    """Within ε on every scorer, each count lies between the other curve's counts at τ ∓ (1 + 0.95)ε."""
    rng = np.random.default_rng(1)

    def bracket(curve, tau, eps):
        margin = (1.0 + R.FRAC) * eps
        return R.local_count(curve, tau - margin)[0], R.local_count(curve, tau + margin)[0]

    for _ in range(300):
        n_layers, n_cand, eps = 4, 8, rng.uniform(0.001, 0.03)
        sizes = rng.integers(1, 600, (n_layers, n_cand))
        pop = rng.uniform(0.6, 0.97, (n_layers, n_cand))
        pop_dense = rng.uniform(0.85, 0.96, n_layers)
        emp = pop + rng.uniform(-eps, eps, pop.shape) * 0.999
        emp_dense = pop_dense + rng.uniform(-eps, eps, n_layers) * 0.999
        tau_pop, tau_emp = R.threshold(pop_dense.max()), R.threshold(emp_dense.max())
        pop_c = [[cand(int(s), float(v)) for s, v in zip(sizes[i], pop[i], strict=True)] for i in range(n_layers)]
        emp_c = [[cand(int(s), float(v)) for s, v in zip(sizes[i], emp[i], strict=True)] for i in range(n_layers)]
        lows, ups, k_hats = [], [], []
        for layer in range(n_layers):
            lo, up = bracket(pop_c[layer], tau_pop, eps)
            k_hat = R.local_count(emp_c[layer], tau_emp)[0]
            assert lo <= k_hat <= up
            lo2, up2 = bracket(emp_c[layer], tau_emp, eps)  # roles exchanged
            assert lo2 <= R.local_count(pop_c[layer], tau_pop)[0] <= up2
            lows.append(lo)
            ups.append(up)
            k_hats.append(k_hat)
        # aggregated counts, by Lemma 1(iv)
        assert R.neighbor_confirm(lows) <= R.neighbor_confirm(k_hats) <= R.neighbor_confirm(ups)


# --- Lemma 1 (ii)–(iv) as properties -------------------------------------------------------------

counts_st = st.one_of(st.integers(1, 2000), st.just(INF))


@FAST
@given(st.lists(st.lists(st.lists(st.tuples(st.integers(1, 64), st.floats(0.4, 1.0)), max_size=5),
                         min_size=2, max_size=4), min_size=1, max_size=3),
       st.floats(0.5, 1.0, exclude_min=True), st.floats(0.01, 1.0), st.floats(0.01, 1.0))
def test_lemma1_ii_counts_grow_with_the_threshold_factor(grid, ceiling, a1, a2):
    lo, hi = sorted((a1, a2))
    seeds_lo, seeds_hi = [], []
    for layers in grid:  # seed → layers → candidates (one class decision)
        k_lo = [R.local_count([cand(s, a) for s, a in c], R.threshold(ceiling, lo))[0] for c in layers]
        k_hi = [R.local_count([cand(s, a) for s, a in c], R.threshold(ceiling, hi))[0] for c in layers]
        assert all(x <= y for x, y in zip(k_lo, k_hi, strict=True))
        seeds_lo.append([R.neighbor_confirm(k_lo)])
        seeds_hi.append([R.neighbor_confirm(k_hi)])
    assert R.task_value(seeds_lo) <= R.task_value(seeds_hi)


@FAST
@given(st.lists(counts_st, min_size=2, max_size=8))
def test_lemma1_iii_confirmed_count_between_second_smallest_and_largest(counts):
    ordered = sorted(counts)
    assert ordered[1] <= R.neighbor_confirm(counts) <= ordered[-1]


@FAST
@given(st.lists(st.lists(counts_st, min_size=1, max_size=4), min_size=1, max_size=5), st.data())
def test_lemma1_iv_aggregates_are_monotone_in_every_count(rows, data):
    i = data.draw(st.integers(0, len(rows) - 1))
    j = data.draw(st.integers(0, len(rows[i]) - 1))
    bigger = data.draw(st.one_of(st.integers(0, 500).map(lambda add: rows[i][j] + add), st.just(INF)))
    raised = [list(r) for r in rows]
    raised[i][j] = bigger
    assert R.neighbor_confirm(rows[i]) <= R.neighbor_confirm(raised[i])
    assert R.ext_median(rows[i]) <= R.ext_median(raised[i])
    assert R.task_value(rows) <= R.task_value(raised)
