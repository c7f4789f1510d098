"""lib.kstar.estimator: Algorithm 2 in one entry, and a pinned end-to-end regression of its k* table.

The pinned table (``data/minilm_two_tasks_kstar.json``) is K01's protocol at its smallest on a real model:
MiniLM, rt_sentiment and bbc_topic at 40 texts per split, two decisions at most, 32 tokens, ``grid:4``, seeds 1
and 2. A change that moves a count, a best block or a window fails here; a change meant to move them rewrites
the file (``PINNED.write_text(json.dumps(_pinned_form(tables), indent=1))`` once, in a reviewed diff that says
why). Counts, blocks and windows must be equal; a ceiling may move by at most one of the 400 positive–negative
pairs its AUROC counts (1/400), the most a different BLAS could flip.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from lib.kstar import estimator
from lib.kstar.protocol import counts

PINNED = Path(__file__).parent / "data" / "minilm_two_tasks_kstar.json"
PROTOCOL = estimator.Protocol(tasks=("rt_sentiment", "bbc_topic"), cap=40, pool_seed=0, max_classes=2,
                              max_tokens=32, min_positives=5, layers="grid:4", sweep_poolings=("mean", "last"),
                              frac=0.95, seeds=(1, 2), subsample=0.85)
#: One positive–negative pair of the 20 × 20 test split.
CEILING_TOLERANCE = 1 / 400


def _pinned_form(tables: estimator.KstarTables) -> dict:
    def finite(value):
        return value if not (isinstance(value, float) and math.isinf(value)) else "inf"

    return {
        "counts": [{k: finite(v) for k, v in row.items() if k != "ceiling"}
                   for row in tables.counts.to_dict("records")],
        "ceilings": tables.ceilings[["task", "decision", "ceiling"]].to_dict("records"),
        "best_blocks": [{"task": r["task"], "best_block": int(r["best_block"]), "window": [int(b) for b in r["window"]]}
                        for r in tables.best_blocks.to_dict("records")],
    }


def test_the_k_star_table_of_a_tiny_k01_is_the_pinned_one(sandbox):
    tables = estimator.kstar_tables(["minilm"], PROTOCOL)
    found = _pinned_form(tables)
    pinned = json.loads(PINNED.read_text())
    looser = dataclasses.replace(tables, counts=counts.window_counts(tables.window_fits, 0.9))
    assert _pinned_form(looser)["counts"] != pinned["counts"]  # the comparison sees a threshold's change
    assert found["counts"] == pinned["counts"]
    assert found["best_blocks"] == pinned["best_blocks"]
    assert [(c["task"], c["decision"]) for c in found["ceilings"]] == [(c["task"], c["decision"])
                                                                       for c in pinned["ceilings"]]
    for now, then in zip(found["ceilings"], pinned["ceilings"], strict=True):
        assert abs(now["ceiling"] - then["ceiling"]) <= CEILING_TOLERANCE, now


def test_the_protocol_is_read_from_a_notebooks_parameters_and_a_control_is_checked():
    from lib import config

    params = config.canonical("K01_kstar", "smoke")
    protocol = estimator.Protocol.of(params)
    assert protocol.layers == params.layers and protocol.seeds == tuple(params.seeds)
    assert set(protocol.pool_args()) == {"tasks", "cap", "pool_seed", "max_classes", "max_tokens", "min_positives"}
    sweep_only = estimator.Protocol.of(config.canonical("K06_sae_correspondence", "smoke"))
    assert sweep_only.seeds == (1, 2, 3, 4, 5)  # a notebook that only sweeps has A.1.6's window settings
    with pytest.raises(ValueError, match="control='rotated'; allowed: '', 'format', 'rotation', 'shuffled'"):
        estimator.kstar_tables(["tiny-bert"], protocol, control="rotated")


def test_each_model_reads_in_a12s_format_and_the_format_control_in_the_other(monkeypatch):
    """A.1.2: SmolLM2-135M-Instruct (instruction-tuned) as a single user turn with the generation prompt, MiniLM as
    raw text; the format control swaps them, and the notebook's line says which."""
    from lib.kstar import measure
    from lib.models import extraction

    seen = []
    monkeypatch.setattr(extraction, "extract_poolings", lambda model, texts, **kw: seen.append(
        (model, kw["chat_template"])) or {})
    pool = type("Pool", (), {"texts_train": ["a"], "texts_test": ["b"]})()
    for model in ("smollm2-135m", "minilm"):
        measure.representations(model, pool, [1], ("mean",), max_tokens=8)
    measure.representations("smollm2-135m", pool, [1], ("mean",), max_tokens=8, chat_template=False)
    assert seen == [("smollm2-135m", True), ("minilm", False), ("smollm2-135m", False)]
    assert estimator._control_args("smollm2-135m", "format", 0) == {"chat_template": False}
    assert estimator._control_args("minilm", "format", 0) == {"chat_template": True}
    assert estimator._control_args("smollm2-135m", "", 0) == {}
    assert estimator.input_formats(["minilm", "smollm2-135m"]) == (
        "input format (A.1.2): minilm plain text; smollm2-135m chat (one user turn + generation prompt)")
    assert estimator.input_formats(["smollm2-135m"], "format") == (
        "input format (the format control, A.3.2): smollm2-135m plain text")
