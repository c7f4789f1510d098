"""Paper 001's Table 1 aggregator: signs, significance, the count, row-order invariance, the external CSV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from lib.bias_shift import table1

KW = {"n_bootstrap": 30, "n_permutations": 120, "seed": 0}


def _setting(rng, benchmark, family, regime, slope, noise=0.3, n_checkpoints=5, n_groups=6):
    """ΔBiasScore = slope · ΔB + noise; ΔB carries a checkpoint level and a group part."""
    level = np.linspace(1.0, -1.0, n_checkpoints)
    rows = []
    for c in range(n_checkpoints):
        for g in range(n_groups):
            delta_b = level[c] + 0.3 * rng.normal()
            rows.append({"benchmark": benchmark, "family": family, "regime": regime, "checkpoint": f"c{c}",
                         "group": f"g{g}", "delta_b": delta_b, "delta_bias_score": slope * delta_b
                         + noise * rng.normal()})
    return rows


@pytest.fixture(scope="module")
def pairs():
    rng = np.random.default_rng(0)
    rows = []
    for family in ("A", "B"):
        for regime in ("lora", "full"):
            rows += _setting(rng, "bench", family, regime, slope=-1.0)
    rows += _setting(rng, "other", "A", "lora", slope=0.0, noise=1.0)  # no relation
    rows += _setting(rng, "other", "A", "full", slope=+1.0)  # the wrong sign
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def table(pairs):
    return table1.table1(pairs, **KW)


def test_a_negative_relation_is_negative_and_significant(table):
    bench = table[table.benchmark == "bench"]
    settings = set(zip(bench.family, bench.regime, strict=True))
    assert len(bench) == 4 and settings == {(f, r) for f in "AB" for r in ("lora", "full")}
    assert (bench.pearson_r < -0.8).all() and (bench.p_checkpoints < 0.05).all() and (bench.p_pooled < 1e-6).all()
    assert (bench.roc_auc > 0.9).all() and bench.significant.all()
    assert (bench.n_pairs == 30).all() and (bench.n_checkpoints == 5).all()
    assert (table.significance_p == "p_checkpoints").all()


def test_null_and_positive_relations_are_not_significant(table):
    other = table[table.benchmark == "other"].set_index("regime")
    assert other.pearson_r["full"] > 0.8 and other.p_checkpoints["full"] < 0.05  # small p, wrong sign
    assert not other.significant.any()


def test_significant_count(table):
    assert table1.significant_count(table) == (4, 6)
    assert table1.significant_count(table[table.benchmark == "bench"]) == (4, 4)
    with pytest.raises(ValueError, match="'significant'"):
        table1.significant_count(table.drop(columns="significant"))


def test_rows_do_not_depend_on_the_order_of_the_pairs(pairs, table):
    shuffled = pairs.sample(frac=1.0, random_state=3).reset_index(drop=True)
    pd.testing.assert_frame_equal(table1.table1(shuffled, **KW), table)


def test_pooled_p_can_be_chosen_and_bad_choices_are_named(pairs):
    one = pairs[(pairs.benchmark == "bench") & (pairs.family == "A") & (pairs.regime == "lora")]
    assert table1.table1(one, p="p_pooled", **KW).significance_p.iloc[0] == "p_pooled"
    with pytest.raises(ValueError, match="p='p_value'"):
        table1.table1(one, p="p_value", **KW)
    with pytest.raises(ValueError, match=r"lacks the columns \['benchmark'\]"):
        table1.table1(one.drop(columns="benchmark"), **KW)


def test_paper_table1_as_transcribed():
    paper = table1.paper_table1()
    assert len(paper) == 18 and (paper.pearson_r < 0).all()
    dt = paper[paper.benchmark == "DecodingTrust"]
    assert table1.significant_count(dt[dt.regime == "full"]) == (3, 3)  # Sec. 4.2: all three under full FT
    assert table1.significant_count(dt[dt.regime == "lora"]) == (2, 3)  # Sec. 4.3: Gemma falls below under LoRA
    assert table1.PAPER_TABLE1["Llama", "ToxiGen", "full"]["r"] == -0.62


def _write(tmp_path, frame):
    path = tmp_path / "pairs.csv"
    frame.to_csv(path, index=False)
    return path


def test_read_external_pairs_round_trips(pairs, tmp_path):
    read = table1.read_external_pairs(_write(tmp_path, pairs.assign(extra=1)))
    pd.testing.assert_frame_equal(read, pairs[list(table1.PAIR_COLUMNS)])


@pytest.mark.parametrize(("edit", "match"), [
    (lambda f: f.drop(columns="delta_b"), r"lacks the columns \['delta_b'\]"),
    (lambda f: f.assign(regime=f.regime.replace("full", "qlora")), r"column 'regime' holds 'qlora' in data row \d+; "
                                                                    r"allowed: lora, full"),
    (lambda f: f.assign(delta_b=f.delta_b.where(f.index != 4, np.inf)), r"column 'delta_b' holds 'inf' in data row 5"),
    (lambda f: f.assign(delta_bias_score=f.delta_bias_score.astype(object).where(f.index != 2, "n/a")),
     r"column 'delta_bias_score' holds 'n/a' in data row 3"),
    (lambda f: f.assign(family=f.family.where(f.index != 0, "")), r"column 'family' is empty in data row 1"),
    (lambda f: pd.concat([f, f.iloc[:1]]), r"appears more than once"),
    (lambda f: f[(f.checkpoint == "c0") | (f.benchmark == "bench")], r"column 'checkpoint' holds only \['c0'\] for "
                                                                      r"\(benchmark, family, regime\) = \('other'"),
])
def test_read_external_pairs_names_the_file_column_and_value(pairs, tmp_path, edit, match):
    path = _write(tmp_path, edit(pairs.copy()))
    with pytest.raises(ValueError, match=match) as error:
        table1.read_external_pairs(path)
    assert str(path) in str(error.value)


def test_read_external_pairs_needs_a_file(tmp_path):
    with pytest.raises(ValueError, match="is not a file"):
        table1.read_external_pairs(tmp_path / "none.csv")


def test_printed_values_and_paper_medians():
    paper = table1.paper_table1()
    row = paper[(paper.benchmark == "DecodingTrust") & (paper.regime == "lora")]
    text = table1.printed(paper, "DecodingTrust", "lora", "pearson_r", stars=True)
    assert text.count(",") == len(row) - 1 and all(str(f) in text for f in row.family)
    assert table1.paper_median("DecodingTrust", "lora") == -0.75  # Mistral -0.77, Llama -0.75, Gemma -0.14
    assert table1.paper_median("ToxiGen", "full", "roc_auc") == 0.78  # 0.78, 0.91, 0.69
    with pytest.raises(ValueError, match="no Toxigen"):
        table1.paper_median("Toxigen", "lora")
