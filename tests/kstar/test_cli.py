"""``python -m lib kstar``: layer specs, one-line errors before any compute, and a real run on tiny-bert."""

import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import REPO, run_cli

from lib import __main__ as cli_main
from lib.kstar import measure


def small_csv(path, n_per_class: int = 30, **columns) -> str:
    rng = np.random.default_rng(0)  # random word orders: no two texts are near-duplicates, which the pool drops
    weather = ("sun", "sky", "clear", "warm", "bright", "cloudless")
    market = ("shares", "fell", "stocks", "bonds", "prices", "dropped")
    texts = [" ".join(rng.choice(weather, size=6)) + f", day {i}" for i in range(n_per_class)]
    texts += [" ".join(rng.choice(market, size=6)) + f", day {i}" for i in range(n_per_class)]
    frame = pd.DataFrame({"text": texts, "label": ["sunny"] * n_per_class + ["market"] * n_per_class, **columns})
    file = path / "small.csv"
    frame.to_csv(file, index=False)
    return str(file)






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
    assert report["model"] == "tiny-bert" and report["blocks"] == [0, 1] and report["window"] == [0, 1]
    assert report["n_train"] == 48 and report["n_test"] == 12 and report["pooling"] == "mean"
    [decision] = report["decisions"]
    assert decision["decision"] == "sunny" and decision["n_test_pos"] == 6
    assert report["kstar"] == "inf" or report["seed_range"][0] <= report["kstar"] <= report["seed_range"][1]
    assert isinstance(report["flagged"], bool) and isinstance(report["precise"], bool)
