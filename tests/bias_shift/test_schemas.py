"""D01's settings axes: references × methods, and the one setting that checkpoint_paths belong to."""

from __future__ import annotations

import pytest

from lib import config


def test_settings_default_to_one_and_take_lists():
    assert config.validate("D01_deltab", {}).references == ("smollm2-135m",)
    params = config.validate("D01_deltab", {"references": ["tiny-llama", "smollm2-135m"], "methods": ["lora", "full"]})
    assert params.methods == ("lora", "full")


@pytest.mark.parametrize("values", [
    {"checkpoint_paths": ["ckpt/a"], "methods": ["lora", "full"]},
    {"checkpoint_paths": ["ckpt/a"], "references": ["smollm2-135m", "gemma3-270m"]},
])
def test_checkpoint_paths_belong_to_one_reference_and_one_method(values):
    with pytest.raises(config.ConfigError, match=r"'checkpoint_paths' is set, with references = \[.*\] and methods = "
                                                 r"\[.*\]; allowed: one reference and one method"):
        config.validate("D01_deltab", values)
    assert config.validate("D01_deltab", {"checkpoint_paths": ["ckpt/a"], "methods": ["full"]}).methods == ("full",)


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
