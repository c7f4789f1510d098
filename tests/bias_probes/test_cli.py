"""lib.bias_probes.cli: ``python -m lib power`` on a real (tiny) model, its JSON and its bad-input errors."""

import json

from conftest import run_cli, tiny_causal_lm

from lib import paths
from lib.bias_probes import power


def test_the_power_command_on_a_tiny_model(tmp_path):
    folder = tiny_causal_lm(tmp_path / "tiny")
    done = run_cli(paths.REPO_ROOT, "power", "--model", str(folder), "--dimension", "gender", "--layer", "1",
                   "--n", "200", "--alpha", "0.5", "--auc", "0.55", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert {"s_hat", "alpha_star", "n_required", "verdict"} <= set(report) and report["s_hat"] >= 0
    assert report["verdict"] in (power.DETECTED, power.UNDERPOWERED, power.NO_SIGNAL)
    bad = run_cli(paths.REPO_ROOT, "power", "--model", str(folder), "--dimension", "gender", "--layer", "7")
    assert bad.returncode == 2 and "layer=7 is not a layer" in bad.stderr
