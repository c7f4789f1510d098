"""lib.kstar.protocol.counts and lib.kstar.order.text_baseline: from logged curves to k*, on hand-built tables
with known answers."""

import math

import numpy as np
import pandas as pd
import pytest

from lib.kstar.protocol import counts, rules
from lib.kstar.protocol.probe_search import Candidate


def _rows(model, task, decision, block, seed, dense, curve, n_pos=100, n_neg=100):
    """One search's tidy rows: a dense row and prefix candidates {size: auroc}."""
    common = {"model": model, "task": task, "decision": decision, "block": block, "seed": seed,
              "n_test_pos": n_pos, "n_test_neg": n_neg, "n_fits": 60}
    rows = [{**common, "path": "dense", "size": 512, "auroc": dense, "gamma": 1.0}]
    rows += [{**common, "path": "prefix", "size": k, "auroc": a, "gamma": 1.0} for k, a in curve.items()]
    return rows


def _window(values_by_block, dense=0.98, decision="yes", task="t", seeds=(1,)):
    """A window whose local count at each block is the given value (∞: never qualifies)."""
    rows = []
    for seed in seeds:
        for block, value in values_by_block.items():
            curve = {k: (0.97 if value != math.inf and k >= value else 0.6) for k in (1, 2, 4, 8, 16, 32, 64, 128, 256)}
            rows += _rows("m", task, decision, block, seed, dense, curve)
    return pd.DataFrame(rows)


def test_common_ceiling_threshold_and_confirmed_count_follow_the_paper():
    window = _window({3: 32, 7: 8, 11: 16, 15: math.inf})
    ceilings = counts.window_ceilings(window)
    assert ceilings.ceiling.item() == 0.98
    assert ceilings.tau.item() == pytest.approx(rules.threshold(0.98)) == pytest.approx(0.956)
    local = counts.local_counts(window, ceilings)
    assert local.sort_values("block")["count"].tolist() == [32, 8, 16, math.inf]
    assert counts.confirmed_counts(local).confirmed.item() == 16  # 32, 8, 16, ∞ → 16 (A.1.6)


def test_the_common_ceiling_gives_a_weak_block_no_easier_threshold():
    window = _window({1: 4, 2: 4})
    weak = window.block == 2
    window.loc[weak & (window.path == "dense"), "auroc"] = 0.80  # block 2's own dense probe is weaker
    window.loc[weak & (window.path == "prefix"), "auroc"] = 0.85  # above its own τ, below the common one
    local = counts.local_counts(window, counts.window_ceilings(window))
    assert local.set_index("block")["count"].to_dict() == {1: 4, 2: math.inf}


def test_task_value_seed_range_and_readability_flag():
    rows = []
    for seed, value in zip((1, 2, 3), (8, 4, 16), strict=True):
        rows.append(_window({1: value, 2: value}, dense=0.88, seeds=(seed,)))
    table = counts.window_counts(pd.concat(rows, ignore_index=True))
    row = table.iloc[0]
    assert (row.kstar, row.seed_min, row.seed_max) == (8, 4, 16)
    assert row.flagged and row.ceiling == 0.88  # ceiling ≤ 0.90: flagged, count still reported


def test_variants_move_counts_in_the_lemma_direction():
    window = pd.concat([_window({1: 8, 2: 16}, seeds=(1, 2)), _window({1: 2, 2: math.inf}, task="u", seeds=(1, 2))])
    window.loc[(window.path == "prefix") & (window["size"] == 64) & (window.task == "t"), "auroc"] = 0.979
    assert counts.monotone_share(window, [0.9, 0.95, 0.975]) == 1.0
    tables = counts.variants(window, [0.9, 0.975])
    main = tables[tables.variant == "main"].set_index("task").kstar
    strict = tables[tables.variant == "threshold 0.975"].set_index("task").kstar
    assert (strict >= main).all()
    single = tables[tables.variant == "single layer"].set_index("task").kstar
    assert single["u"] == 2 and main["u"] == math.inf  # the isolated minimum counts only without confirmation


def test_agreement_treatments_and_the_minimum_task_rule():
    def table(values, flagged=()):
        return pd.DataFrame({"task": list("abcdef"), "kstar": values,
                             "flagged": [t in flagged for t in "abcdef"]})

    a = table([1, 2, 4, 8, 16, math.inf])
    b = table([2, 1, 4, 8, math.inf, math.inf], flagged=("d",))
    rho_all, n_all = counts.agreement(a, b, "all", 3)
    rho_finite, n_finite = counts.agreement(a, b, "finite", 3)
    assert n_all == 6 and n_finite == 4 and counts.agreement(a, b, "gated", 3)[1] == 3
    assert rho_finite == pytest.approx(0.8)
    assert 0 < rho_all < 1
    assert math.isnan(counts.agreement(a, b, "gated", 4)[0])
    with pytest.raises(ValueError, match="treatment='some'"):
        counts.agreement(a, b, "some", 3)


def test_compare_tables_reads_infinite_pairs_as_unchanged():
    main = pd.DataFrame({"model": "m", "task": ["a", "b", "c"], "kstar": [4, math.inf, 8], "ceiling": [0.9, 0.8, 0.95]})
    control = main.assign(kstar=[16, math.inf, math.inf], ceiling=[0.92, 0.8, 0.9])
    out = counts.compare_tables(main, control).set_index("task")
    assert out.ratio.tolist() == [4.0, 1.0, math.inf]
    assert out.ceiling_change["c"] == pytest.approx(-0.05)


def test_display_rounds_half_to_even():
    assert [counts.display_count(v) for v in (1.5, 2.5, 4.5, 15.5, math.inf)] == ["2", "2", "4", "16", "∞"]


def test_a_decision_at_chance_is_unreadable_and_never_counted():
    readable = _window({1: 4, 2: 4}, decision="yes")
    chance = _window({1: 1, 2: 1}, dense=0.48, decision="no")
    chance.loc[chance.path == "prefix", "auroc"] = 0.49  # τ ≤ ½ would let every candidate qualify
    window = pd.concat([readable, chance], ignore_index=True)
    assert counts.window_ceilings(window).set_index("decision").unreadable.to_dict() == {"yes": False, "no": True}
    table = counts.window_counts(window).iloc[0]
    assert table.kstar == 4 and table.n_decisions == 1


def test_precision_table_reads_readable_decisions_only():
    window = pd.concat([_window({1: 4, 2: 4}, dense=0.98, task="t", decision="yes"),
                        _window({1: 4, 2: 4}, dense=0.85, task="u", decision="yes")], ignore_index=True)
    ceilings, tasks = counts.window_ceilings(window), counts.window_counts(window)
    table = counts.precision_table(ceilings, tasks, n_scorers=440).iloc[0]
    assert table.decisions == 1  # task u is flagged (ceiling 0.85)
    assert table.median_se == pytest.approx(rules.ceiling_se(0.98, 100, 100))
    assert table.radius == pytest.approx(rules.mcdiarmid_radius(100, 100, 440))


def test_sweep_and_window_ceilings_take_the_largest_auroc_over_blocks_seeds_and_paths():
    window = _window({1: 4, 2: 4}, dense=0.95, seeds=(1, 2))
    window.loc[(window.block == 2) & (window.seed == 2) & (window.path == "dense"), "auroc"] = 0.97
    window.loc[(window.block == 1) & (window.path == "prefix") & (window["size"] == 256), "auroc"] = 0.99
    assert counts.window_ceilings(window).ceiling.item() == 0.97  # dense probes only (A.1.6, Eq. 4)
    sweep = window.assign(pooling="mean")
    last = sweep.assign(pooling="last", auroc=sweep.auroc - 0.2)
    assert counts.sweep_ceilings(pd.concat([sweep, last])).ceiling.item() == 0.99  # any probe ("Preliminary sweep")


def test_the_ceiling_error_is_compared_with_the_gap_as_in_the_worked_example():
    worked = _window({1: 4}, dense=0.979, decision="yes")
    worked[["n_test_pos", "n_test_neg"]] = 1039, 961
    low = _window({1: 4}, dense=0.62, decision="no")
    low[["n_test_pos", "n_test_neg"]] = 40, 960
    at_chance = _window({1: 4}, dense=0.5, decision="chance")
    out = counts.window_ceilings(pd.concat([worked, low, at_chance], ignore_index=True)).set_index("decision")
    assert round(out.se["yes"], 4) == 0.0032 and out.gap["yes"] == pytest.approx(0.02395)  # A.1.7–A.1.8
    assert out.se_within_gap.to_dict() == {"yes": True, "no": False, "chance": False}  # "no": gap 0.006, large s.e.
    assert out.unreadable.to_dict() == {"yes": False, "no": False, "chance": True}  # C ≤ ½ reads nothing


def test_local_counts_apply_the_rule_of_rules_local_count_to_every_search():
    rng = np.random.default_rng(0)
    rows = []
    for block in range(4):
        for seed in (1, 2):
            sizes = rng.integers(1, 300, 12)
            aurocs = rng.uniform(0.85, 0.93 if block == 3 else 0.99, 12).round(3)  # block 3 never reaches τ
            rows += _rows("m", "t", "yes", block, seed, 0.97, {})
            rows += [{**rows[-1], "path": "prefix" if i < 6 else "l1", "size": int(s), "auroc": float(a)}
                     for i, (s, a) in enumerate(zip(sizes, aurocs, strict=True))]
    window = pd.DataFrame(rows)
    ceilings = counts.window_ceilings(window)
    local = counts.local_counts(window, ceilings).set_index(["block", "seed"])["count"]
    tau = ceilings.tau.item()
    for (block, seed), search in window[window.path != "dense"].groupby(["block", "seed"]):
        candidates = [Candidate(r.path, r.size, tuple(range(r.size)), r.auroc, 1.0) for r in search.itertuples()]
        assert local[(block, seed)] == rules.local_count(candidates, tau)[0]
    assert np.isfinite(local).any() and not np.isfinite(local).all()


def test_the_search_maximum_and_its_sidak_limit_against_simulated_null_maxima():
    """z_limit is the level the largest of ``fits`` independent null AUROCs exceeds with chance 0.05: checked on
    simulated label-free decisions (Mann-Whitney AUROCs of random scores), and the maximum is read over every row."""
    rng = np.random.default_rng(0)
    n_pos, n_neg, fits = 40, 60, 50
    ranks = rng.standard_normal((400, fits, n_pos + n_neg)).argsort(axis=-1).argsort(axis=-1) + 1  # positives first
    aurocs = (ranks[..., :n_pos].sum(axis=-1) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)  # Mann-Whitney
    maxima = aurocs.max(axis=1)
    rows = pd.DataFrame({"model": "m", "task": "t", "decision": "d", "auroc": rng.uniform(0.4, 0.7, fits),
                         "n_fits": 66, "n_test_pos": n_pos, "n_test_neg": n_neg})  # one row per test AUROC
    found = counts.search_maximum(rows).iloc[0]
    assert found.maximum == rows.auroc.max() and found.tests == fits  # rows, not the fits each row repeats
    limit = 0.5 + found.z_limit * found.sigma0
    exceed = float((maxima > limit).mean())
    assert abs(exceed - 0.05) < 3 * np.sqrt(0.05 * 0.95 / len(maxima)) + 0.01  # the AUROC's lattice: a little slack
