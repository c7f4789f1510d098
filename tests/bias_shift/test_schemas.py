"""D01's settings axes: references × methods, and the one setting that checkpoint_paths belong to."""

from __future__ import annotations

import pytest

from lib import config


def test_settings_default_to_one_and_take_lists():
    assert config.validate("D01_deltab", {}).references == ("smollm2-135m",)
    params = config.validate("D01_deltab", {"references": ["tiny-llama", "smollm2-135m"], "methods": ["lora", "full"]})
    assert params.methods == ("lora", "full")


@pytest.mark.parametrize("values", [
    {"checkpoint_paths": ["ckpt/a"], "methods": ["lora", "full"], "harmful_shares": []},
    {"checkpoint_paths": ["ckpt/a"], "references": ["smollm2-135m", "gemma3-270m"], "harmful_shares": []},
])
def test_checkpoint_paths_belong_to_one_reference_and_one_method(values):
    with pytest.raises(config.ConfigError, match=r"'checkpoint_paths' is set, with references = \[.*\] and methods = "
                                                 r"\[.*\]; allowed: one reference and one method"):
        config.validate("D01_deltab", values)
    assert config.validate("D01_deltab", {"checkpoint_paths": ["ckpt/a"], "methods": ["full"],
                                          "harmful_shares": []}).methods == ("full",)


@pytest.mark.parametrize(("values", "match"), [
    ({"references": []}, r"'references' = \[\] is not allowed"),
    ({"methods": ["lora", "lora"]}, r"'methods' = \['lora', 'lora'\] is not allowed; allowed: a non-empty list of "
                                    r"distinct values"),
    ({"methods": ["qlora"]}, r"'methods' = \['qlora'\] is out of range"),
    ({"external_scores_csv": "s.csv", "methods": ["lora", "full"]}, r"'external_scores_csv' is set"),
])
def test_bad_settings_are_named(values, match):
    with pytest.raises(config.ConfigError, match=match):
        config.validate("D01_deltab", values)


def test_the_claims_pooling_must_be_listed():
    assert config.validate("D01_deltab", {"poolings": ["last", "mean"]}).poolings == ("last", "mean")
    with pytest.raises(config.ConfigError, match=r"'poolings' = \['max', 'last'\] is not allowed; allowed: a list "
                                                 r"holding 'mean', the paper's pooling"):
        config.validate("D01_deltab", {"poolings": ["max", "last"]})


def test_the_shares_spectrum_fine_tunes_the_reference_so_it_needs_a_seed_and_no_given_checkpoints():
    assert config.validate("D01_deltab", {"checkpoint_paths": ["ckpt/a"], "harmful_shares": []}).harmful_shares == ()
    with pytest.raises(config.ConfigError, match=r"'harmful_shares' = \[0.0, 0.5, 1.0\] is set"):
        config.validate("D01_deltab", {"checkpoint_paths": ["ckpt/a"]})
    with pytest.raises(config.ConfigError, match="share_seeds = \\[\\]"):
        config.validate("D01_deltab", {"share_seeds": []})
