"""Every notebook under params/smoke/ runs through the runner; its outputs carry provenance."""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from conftest import smoke_run

from lib import config, paths

SMOKE_NOTEBOOKS = sorted(p.stem for p in (paths.PARAMS_DIR / "smoke").glob("*.yaml"))
#: Under pytest-xdist (``make test``: ``-n 2 --dist loadgroup``) every test of a notebook goes to one worker, so each
#: notebook runs once: :func:`conftest.smoke_run` remembers its run per process.
NOTEBOOK_CASES = [pytest.param(name, marks=pytest.mark.xdist_group(name)) for name in SMOKE_NOTEBOOKS]


@pytest.mark.parametrize("notebook", NOTEBOOK_CASES)
def test_notebook_runs_under_smoke(repo_copy, notebook):
    """The notebook runs end to end under the smoke profile (``lib run --force``: every result recomputed).

    Each case costs about 4–5 s before its first cell (Python, papermill, a kernel, the imports). Some take
    longer, up to about 20 s with the caches warm on two workers, for work smoke keeps to prove its code path:
    the notebooks that read the tiny models import torch and transformers (a few seconds alone) and run their forward
    passes; D01 fine-tunes tiny-llama twice (LoRA, full) and generates from every checkpoint; K06 trains an SAE per
    block and runs Algorithm 1's LIBLINEAR searches on its codes; K08 fine-tunes two students. On a fresh clone
    (``cache/`` empty) the extractions, the shared tables and K04's model training run too, which adds to these.
    """
    result = smoke_run(repo_copy, notebook)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (repo_copy / "build" / "smoke" / f"{notebook}.done.json").is_file()
    assert (repo_copy / "results" / "smoke" / notebook / "claims.json").is_file()


@pytest.mark.parametrize("notebook", NOTEBOOK_CASES)
def test_every_caption_names_existing_sources_with_the_parameters_used(repo_copy, notebook):
    assert smoke_run(repo_copy, notebook).returncode == 0
    stamp = json.loads((repo_copy / "build" / "smoke" / f"{notebook}.done.json").read_text())
    used = config.validate(notebook, stamp["params"])
    captions = sorted((repo_copy / "figures" / "smoke" / notebook).glob("*.caption.md"))
    assert captions, "the notebook wrote no figure or table"
    for caption in captions:
        sources = re.findall(r"^Source: (\S+)$", caption.read_text(), flags=re.M)
        assert sources, f"{caption.name} names no source"
        for source in sources:
            manifest = json.loads((repo_copy / (source + ".manifest.json")).read_text())
            assert (repo_copy / source).is_file()
            assert manifest["params_hash"] == config.params_hash(used)
            assert manifest["params_hash"] == config.params_hash(config.validate(notebook, manifest["params"]))
    index = (repo_copy / "figures" / "smoke" / "INDEX.md").read_text()
    assert all(c.name.removesuffix(".caption.md") in index for c in captions)


@pytest.mark.parametrize("notebook", NOTEBOOK_CASES)
def test_no_figure_has_colliding_texts(repo_copy, notebook):
    """``save_figure`` warns of each figure whose texts overlap or leave the canvas; the executed notebook keeps it."""
    assert smoke_run(repo_copy, notebook).returncode == 0
    executed = nbformat.read(repo_copy / "build" / "smoke" / f"{notebook}.ipynb", as_version=4)
    streams = [output.text for cell in executed.cells for output in cell.get("outputs", [])
               if output.get("name") == "stderr"]
    collisions = [line for text in streams for line in text.splitlines() if "FigureLayoutWarning" in line]
    assert not collisions, "\n".join(collisions)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


@pytest.mark.parametrize("notebook", NOTEBOOK_CASES)
def test_every_json_the_run_writes_is_strict(repo_copy, notebook):
    """Results, manifests, claims, the run stamp and the executed notebook parse with a strict parser: no bare
    NaN or Infinity (lib.strict_json), so a browser's JSON.parse reads each of them."""
    assert smoke_run(repo_copy, notebook).returncode == 0
    written = [*(repo_copy / "results" / "smoke" / notebook).rglob("*.json"),
               *(repo_copy / "figures" / "smoke" / notebook).rglob("*.json"),
               *(repo_copy / "build" / "smoke").glob(f"{notebook}.*json"),
               repo_copy / "build" / "smoke" / f"{notebook}.ipynb"]
    assert any(path.name == "claims.json" for path in written)
    for path in written:
        try:
            json.loads(path.read_text(), parse_constant=_refuse_constant)
        except ValueError as error:
            pytest.fail(f"{path.relative_to(repo_copy)}: {error}")


@pytest.mark.parametrize("notebook", NOTEBOOK_CASES)
def test_every_saved_figure_is_an_image_output_of_the_executed_notebook(repo_copy, notebook):
    """Each figure the run saved shows once, as an image, in the executed notebook a reader opens, though the batch
    draws with Agg (:func:`conftest.run_cli`), which displays nothing by itself."""
    assert smoke_run(repo_copy, notebook).returncode == 0
    saved = sorted(f"figure figures/smoke/{notebook}/{png.name}"
                   for png in (repo_copy / "figures" / "smoke" / notebook).glob("*.png"))
    executed = nbformat.read(repo_copy / "build" / "smoke" / f"{notebook}.ipynb", as_version=4)
    images = sorted(output.data.get("text/plain", "") for cell in executed.cells for output in cell.get("outputs", [])
                    if "image/png" in output.get("data", {}) or "image/svg+xml" in output.get("data", {}))
    assert images == saved
