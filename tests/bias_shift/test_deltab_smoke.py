"""D01's smoke run on tiny models: the shares spectrum of independent fine-tunes and the group-level paired test.

The run is the one ``tests/test_notebooks.py`` makes (one per process, the same ``xdist_group``): these tests read
what it logged.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import smoke_run

from lib.bias_shift import checkpoints

pytestmark = pytest.mark.xdist_group("D01_deltab")


@pytest.fixture(scope="module")
def logged(repo_copy):
    assert smoke_run(repo_copy, "D01_deltab").returncode == 0
    return repo_copy / "results" / "smoke" / "D01_deltab"


def test_the_shares_spectrum_logs_each_fine_tune_with_its_share_and_seed_and_reuses_the_spectrums_ends(logged):
    tunes = pd.read_parquet(logged / "fine_tunes.parquet")
    assert list(zip(tunes.checkpoint, tunes.harmful_share, tunes.seed, strict=True)) == [
        ("share_0_seed0", 0.0, 0), ("share_50_seed0", 0.5, 0), ("share_100_seed0", 1.0, 0)]
    assert tunes.n_harmful.tolist() == [0, round(0.5 * tunes.n_examples[1]), tunes.n_examples[2]]
    assert len(set(tunes.folder)) == 3 and tunes.folder.str.contains("models/finetunes/").all()
    built = {(e["family"], e["regime"]): e["checkpoints"] for e in json.loads((logged / "spectrum.json").read_text())}
    merges, shares = built["tiny-llama", "lora"], built["tiny-llama", checkpoints.SHARES_REGIME]
    assert shares["share_0_seed0"] == merges["unharmful"] and shares["share_100_seed0"] == merges["harmful"]
    assert shares["share_50_seed0"] not in merges.values()  # trained on its mixed corpus
    audited = pd.read_parquet(logged / "delta_b.parquet")
    assert set(audited[audited.regime == checkpoints.SHARES_REGIME].checkpoint) == set(tunes.checkpoint)


def test_the_group_level_test_is_logged_per_setting_label_and_pooling_and_read_by_its_claims(logged):
    table = pd.read_parquet(logged / "group_level.parquet")
    keys = ["family", "regime", "scorer", "pooling"]
    assert not table.duplicated(keys).any()
    assert set(table.regime) == {"lora", "full", checkpoints.SHARES_REGIME} and set(table.pooling) == {"mean", "max",
                                                                                                      "last"}
    assert set(table.scorer) == {"dt_forced", "dt_sampled", "vader", "profanity"}
    tested = table.dropna(subset=["within_r"])
    assert len(tested) and tested.p_within_negative.between(0, 1).all() and (tested.within_se > 0).all()
    claims = {c["id"]: c for c in json.loads((logged / "claims.json").read_text())}
    for scorer in ("dt_forced", "dt_sampled", "vader", "profanity"):
        assert claims[f"group_ranking_{scorer}"]["kind"] == "extension"
        assert "mean pooling" in claims[f"group_ranking_{scorer}"]["statement"]
    mechanism = claims["delta_b_moves_with_control"]
    assert mechanism["kind"] == "mechanism" and "rr_correlation_profanity" in mechanism["explains"]
