"""lib.kstar.layer_specs: grid:N, explicit lists and the Table 6 grid (A.1.9)."""


import pytest

from lib.kstar import layer_specs


def test_layer_specs_parse_and_table6_lookup():
    assert layer_specs.parse("grid:4") == ("grid", 4) and layer_specs.parse("9, 3,6") == ("list", (3, 6, 9))
    assert layer_specs.parse("table6") == ("table6", None)
    for bad in ("grid:0", "grid:x", "", "3;6", "mid"):
        with pytest.raises(ValueError, match='allowed: "grid:N", "3,6,9", "table6"'):
            layer_specs.parse(bad)
    assert layer_specs.table6_grid("meta-llama/Llama-3.1-8B") == (3, 7, 11, 15, 19, 23, 27, 31)
    assert layer_specs.table6_grid("/checkpoints/Qwen3-8B-Base")[-1] == 35  # a local folder named like the model
    assert (17, 20, 24, 28) == layer_specs.table6_grid("google/gemma-2-9b")[3:7]  # the worked window of A.1.7
    with pytest.raises(ValueError, match="not a Table 6 model; allowed: google/gemma-2-9b"):
        layer_specs.table6_grid("minilm")
    with pytest.raises(ValueError, match="Gemma-3 grids"):
        layer_specs.table6_grid("google/gemma-3-1b-pt")


def test_layer_specs_resolve_against_the_model():
    assert layer_specs.resolve("tiny-bert", "grid:2") == (0, 1) and layer_specs.resolve("tiny-bert", "1,0") == (0, 1)
    with pytest.raises(ValueError, match="has blocks 0…1; the blocks \\[2\\] lie outside"):
        layer_specs.resolve("tiny-bert", "0,2")
    with pytest.raises(ValueError, match="read after the final norm"):
        layer_specs.resolve("tiny-llama", "1")  # a pre-norm decoder: its last hidden state is post-norm


@pytest.mark.models
def test_layer_grid_skips_a_post_norm_final_block():
    assert not layer_specs.reads_last_block_after_norm("minilm")  # BERT: every block's output is a residual stream
    assert layer_specs.layer_grid("minilm", 6) == (0, 1, 2, 3, 4, 5)
    assert layer_specs.layer_grid("minilm", 3) == (0, 2, 5)
    assert layer_specs.reads_last_block_after_norm("smollm2-135m")  # the last hidden state is after the final norm
    grid = layer_specs.layer_grid("smollm2-135m", 6)
    assert grid[0] == 0 and grid[-1] == 28 and len(grid) == 6  # 30 blocks, block 29 left out


def test_a_table6_spec_is_checked_on_the_model_names_alone():
    layer_specs.check_names(["meta-llama/Llama-3.1-8B", "google/gemma-2-9b"], "table6")
    layer_specs.check_names(["minilm"], "grid:6")
    with pytest.raises(ValueError, match="layers 'table6': 'minilm' is not a Table 6 model"):
        layer_specs.check_names(["google/gemma-2-9b", "minilm"], "table6")
    with pytest.raises(ValueError, match="layers 'grid:0'"):
        layer_specs.check_names(["minilm"], "grid:0")


def test_a_layer_spec_outside_a_models_blocks_stops_the_run_in_one_line_before_any_compute():
    from lib import config, runner

    with pytest.raises(config.ConfigError) as error:
        runner.validated(["K01_kstar"], "smoke", {"layers": "1,2,99"})
    assert str(error.value) == ("K01_kstar: parameter layers '1,2,99': 'tiny-bert' has blocks 0…1; the blocks "
                                "[2, 99] lie outside")
    with pytest.raises(config.ConfigError, match="block 1 of 'tiny-llama' is read after the final norm"):
        runner.validated(["K01_kstar"], "smoke", {"layers": "0,1", "models": ["tiny-llama"]})
    assert runner.validated(["K01_kstar"], "smoke", {"layers": "0,1"})
