"""lib.kstar.deployment.deployment: Eq. 40–45, Props. 3–4 against the paper's Table 34 values and simulation (paper
002, A.3)."""

import math

import numpy as np
import pandas as pd
import pytest

from lib.kstar.deployment import deployment


def _window(values_by_block, task="t"):
    """Window rows of one decision and seed whose local count at each block is the given value (∞: none)."""
    rows = []
    for block, value in values_by_block.items():
        common = {"model": "m", "task": task, "decision": "yes", "block": block, "seed": 1, "n_test_pos": 100,
                  "n_test_neg": 100, "n_fits": 60, "gamma": 1.0}
        rows.append({**common, "path": "dense", "size": 512, "auroc": 0.98})
        rows += [{**common, "path": "prefix", "size": k, "auroc": 0.97 if k >= value else 0.6}
                 for k in (1, 2, 4, 8, 16, 32, 64)]
    return pd.DataFrame(rows)


def _tasks(rows):
    return pd.DataFrame(rows, columns=["task", "kstar", "ceiling"])


def test_ratios_gate_on_both_ceilings_and_finite_counts():
    base = _tasks([("a", 8, 0.99), ("b", 341, 0.98), ("c", 64, 0.95), ("d", 32, 0.89), ("e", math.inf, 0.97)])
    tuned = _tasks([("a", 8, 0.99), ("b", 47, 0.97), ("c", 32, 0.90), ("d", 4, 0.99), ("e", 16, 0.99)])
    out = deployment.deployment_ratios(base, tuned)
    table = out.table.set_index("task")
    assert table.gated.to_dict() == {"a": True, "b": True, "c": False, "d": False, "e": False}  # 0.90 is not > 0.90
    assert table.ratio["b"] == pytest.approx(341 / 47)
    assert np.isnan(table.ratio[["c", "d", "e"]]).all()
    assert out.n_gated == 2 and np.isnan(out.rho)  # two tasks: no rank association


def test_rho_is_spearman_of_base_counts_with_ratios():
    base = _tasks([("a", 2, 0.99), ("b", 8, 0.99), ("c", 72, 0.99), ("d", 341, 0.99)])
    tuned = _tasks([("a", 2, 0.99), ("b", 8, 0.99), ("c", 64, 0.99), ("d", 47, 0.99)])
    out = deployment.deployment_ratios(base, tuned)
    assert out.rho == pytest.approx(0.9486833)  # ranks (1,2,3,4) vs (1.5,1.5,3,4)


def test_ratios_reject_tables_that_are_not_one_model():
    table = _tasks([("a", 2, 0.99), ("a", 4, 0.99)])
    with pytest.raises(ValueError, match="repeated tasks"):
        deployment.deployment_ratios(table, table)
    with pytest.raises(ValueError, match="lacks columns"):
        deployment.deployment_ratios(table.drop(columns="ceiling"), table)


def test_proposition_3_by_simulation():
    rng = np.random.default_rng(0)
    for sx, sy in [(1.0, 1.0), (2.0, 0.5), (0.5, 3.0)]:
        x, y = rng.normal(3, sx, 200_000), rng.normal(2, sy, 200_000)  # independent log counts
        measured = np.corrcoef(x, x - y)[0, 1]
        assert measured == pytest.approx(deployment.independence_correlation(sx, sy), abs=0.005)
    assert deployment.independence_correlation(1.0, 0.0) == 1.0
    with pytest.raises(ValueError, match="sigma_base"):
        deployment.independence_correlation(0.0, 1.0)


def test_worked_values_of_table_34():
    harm = deployment.factorial(341, 135, 128, 47)
    fact = deployment.factorial(253, 217, 227, 40)
    assert round(harm.interaction, 2) == 1.08 and round(harm.deployment_ratio, 2) == 7.26
    assert round(fact.interaction, 2) == 4.87 and round(fact.deployment_ratio, 2) == 6.33
    assert deployment.factorial(253, 227, 217, 40).interaction == pytest.approx(fact.interaction)  # order-free


@pytest.mark.parametrize("counts", [(341, 135, 128, 47), (253, 217, 227, 40), (4, 2, 2, 2), (3.5, 17, 1, 9)])
def test_the_ratio_factors_along_both_paths(counts):
    f = deployment.factorial(*counts)
    k00, k01, k10, k11 = counts
    assert f.weights_ratio(0) * f.format_ratio(0) * f.interaction == pytest.approx(k00 / k11)
    assert f.weights_ratio(0) * f.format_ratio(1) == pytest.approx(k00 / k11)
    assert f.format_ratio(0) * f.weights_ratio(1) == pytest.approx(k00 / k11)
    assert f.weights_ratio(1) == pytest.approx(k01 / k11) and f.format_ratio(1) == pytest.approx(k10 / k11)


def test_proposition_4_unique_saturated_decomposition():
    f = deployment.factorial(341, 135, 128, 47)
    design = np.array([[1, -w, -g, -w * g] for w in (0, 1) for g in (0, 1)], dtype=float)  # rows (w, f)
    logs = np.log([f.k00, f.k01, f.k10, f.k11])
    assert np.linalg.matrix_rank(design) == 4
    np.testing.assert_allclose(f.decomposition(), np.linalg.solve(design, logs))
    mu, alpha, beta, delta = f.decomposition()
    assert delta == pytest.approx(math.log(f.interaction)) and alpha > 0 and beta > 0


@pytest.mark.parametrize("bad", [0, -3, math.inf, math.nan, True])
def test_bad_counts_name_the_value(bad):
    with pytest.raises(ValueError, match="k10="):
        deployment.factorial(4, 2, bad, 2)


def test_bad_levels():
    with pytest.raises(ValueError, match="f=2"):
        deployment.factorial(4, 2, 2, 2).weights_ratio(2)


def test_shared_layer_counts_restrict_every_condition_to_common_blocks():
    plain = _window({3: 32, 7: 8, 11: 16, 15: math.inf})  # confirmed: 16
    chat = _window({7: 8, 11: 16, 15: 4, 19: 4})  # confirmed: 4 (15-19); on 7, 11, 15 only: 16
    out = deployment.shared_layer_counts({"plain": plain, "chat": chat}).set_index("condition")
    assert out.shared_blocks["plain"] == [7, 11, 15]
    assert out.kstar_own.to_dict() == {"plain": 16, "chat": 4}
    assert out.kstar_shared.to_dict() == {"plain": 16, "chat": 16}
    assert deployment.shared_blocks([[1, 2], [3]]) == ()


def test_rho_null_is_proposition_3_on_the_gated_spreads():
    base = _tasks([("a", 2, 0.99), ("b", 8, 0.99), ("c", 72, 0.99), ("d", 341, 0.99), ("e", 64, 0.5)])
    tuned = _tasks([("a", 4, 0.99), ("b", 8, 0.99), ("c", 64, 0.99), ("d", 47, 0.99), ("e", 1, 0.99)])
    out = deployment.deployment_ratios(base, tuned)
    sx, sy = np.log([2, 8, 72, 341]).std(), np.log([4, 8, 64, 47]).std()
    assert out.rho_null == pytest.approx(sx / math.hypot(sx, sy))
    assert set(out.as_table(pair="p").columns) >= {"pair", "rho", "rho_null", "n_gated"}
    assert np.isnan(deployment.deployment_ratios(base.iloc[:2], tuned.iloc[:2]).rho_null)


def test_a_common_rescaling_leaves_low_counts_only_where_it_rounds_back():
    assert deployment.rescaled_unchanged_share([1, 2, 4, 8], 1.05) == 1.0
    assert deployment.rescaled_unchanged_share([1, 2, 4, 8], 4.0) == 0.0
    assert deployment.rescaled_unchanged_share([1, 2, 4, 8], 1.3) == pytest.approx(0.5)  # 1, 2 stay; 4, 8 move
    with pytest.raises(ValueError, match="factor"):
        deployment.rescaled_unchanged_share([1], 0.0)


def test_ceiling_spread_draws_match_the_folded_normal():
    draws = deployment.ceiling_spread_draws(np.array([[0.01, 0.01]]), [0.0, 0.0], n=40000, seed=1)
    assert draws.mean() == pytest.approx(0.01 * math.sqrt(2) * math.sqrt(2 / math.pi), rel=0.02)
    shifted = deployment.ceiling_spread_draws(np.array([[0.001, 0.001]]), [0.0, 0.05], n=100)
    assert shifted.mean() == pytest.approx(0.05, abs=0.002)
    with pytest.raises(ValueError, match="one shift per condition"):
        deployment.ceiling_spread_draws(np.ones((2, 2)), [0.0])


def test_the_widest_gated_task_and_the_windows_the_shared_blocks_cut():
    table = pd.DataFrame({"task": ["a", "b", "c"], "k_base": [8.0, 341.0, 900.0], "k_tuned": [8.0, 47.0, 1.0],
                          "gated": [True, True, False], "ratio": [1.0, 341 / 47, np.nan]})
    assert deployment.widest_gated(table).task == "b"
    assert deployment.widest_gated(table.assign(gated=False)) is None
    window = pd.DataFrame({"condition": ["p"] * 3 + ["c"] * 2, "task": "t", "block": [3, 7, 11, 7, 11]})
    shared = pd.DataFrame({"condition": ["p", "c"], "task": "t", "shared_blocks": [[7, 11], [7, 11]]})
    assert deployment.window_cut(shared, window).tolist() == [True, False]


def test_the_log2_ratio_se_needs_two_seeds_in_each_condition():
    seeds = pd.DataFrame({"condition": ["p"] * 3 + ["c"] * 3 + ["one"], "task": "t", "seed": [1, 2, 3] * 2 + [1],
                          "value": [16.0, 32.0, 16.0, 8.0, 8.0, 16.0, 4.0]})
    assert deployment.log2_ratio_se(seeds, "p", "c", "t") > 0
    assert math.isnan(deployment.log2_ratio_se(seeds, "p", "one", "t"))
    assert math.isnan(deployment.log2_ratio_se(seeds, "p", "missing", "t"))
