"""``python -m lib kstar``: layer specs, one-line errors before any compute, and a real run on tiny-bert."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, run_cli

from lib import __main__ as cli_main
from lib.kstar import layer_specs, measure


def small_csv(path, n_per_class: int = 30, **columns) -> str:
    texts = [f"the sun is out and the sky is clear, day {i}" for i in range(n_per_class)]
    texts += [f"the market fell and shares dropped, day {i}" for i in range(n_per_class)]
    frame = pd.DataFrame({"text": texts, "label": ["sunny"] * n_per_class + ["market"] * n_per_class, **columns})
    file = path / "small.csv"
    frame.to_csv(file, index=False)
    return str(file)


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


@pytest.fixture
def no_compute(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("extraction started before the inputs were checked")

    monkeypatch.setattr(measure, "representations", refuse)


@pytest.mark.parametrize(("case", "message"), [
    ("unknown model", "error: model path '/no/such/checkpoint' is not a folder"),
    ("missing column", "error: task file '.*small.csv' lacks the column\\(s\\) label"),
    ("single-class split", "error: the train split of 'small' holds only the class 'sunny'"),
    ("too few positives", "error: too few positives: no class decision of 'small' can be measured"),
    ("bad layers", "error: layers 'grid:0': the grid size must be an integer"),
])
def test_each_bad_input_is_one_error_line_and_exit_2(tmp_path, capsys, no_compute, case, message):
    model, layers = "tiny-bert", "grid:2"
    if case == "unknown model":
        file, model = small_csv(tmp_path), "/no/such/checkpoint"
    elif case == "missing column":
        file = small_csv(tmp_path)
        pd.read_csv(file).drop(columns="label").to_csv(file, index=False)
    elif case == "single-class split":
        file = small_csv(tmp_path, split=["train"] * 30 + ["test"] * 30)
    elif case == "too few positives":
        file = small_csv(tmp_path)
        frame = pd.read_csv(file)
        frame[(frame.label == "market") | (np.arange(len(frame)) < 6)].to_csv(file, index=False)
    else:
        file, layers = small_csv(tmp_path), "grid:0"
    code = cli_main.main(["kstar", "--model", model, "--task", file, "--layers", layers])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and 1 <= len(err) <= 3
    assert any(re.match(message, line) for line in err), err


def test_kstar_on_tiny_bert_from_a_csv(tmp_path):
    """The command end to end on a real (tiny) model and a CSV of one's own: about 10 s alone on 2 cores."""
    file = small_csv(tmp_path)
    done = run_cli(REPO, "kstar", "--model", "tiny-bert", "--task", file, "--layers", "grid:2", "--json", timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["model"] == "tiny-bert" and report["layers"] == [0, 1] and report["window"] == [0, 1]
    assert report["n_train"] == 48 and report["n_test"] == 12 and report["pooling"] == "mean"
    [decision] = report["decisions"]
    assert decision["decision"] == "sunny" and decision["n_test_pos"] == 6
    assert report["kstar"] == "inf" or report["seed_range"][0] <= report["kstar"] <= report["seed_range"][1]
    assert isinstance(report["flagged"], bool) and isinstance(report["precise"], bool)
