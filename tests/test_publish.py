"""lib.publish, lib.published and lib.readme: a reference run copied out, checked for staleness, told in the README.

The copy path runs :func:`lib.publish.publish` on a real smoke run of the toy notebook ``ZZ_tiny`` in a repository
copy (the command itself refuses smoke); the refusals and the scrubbing are checked in-process.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import TINY_NOTEBOOK, TINY_SCHEMA, add_toy_schema, copy_finished, run_cli

from lib import claims, config, paths, publish, published, runner


def _python(root: Path, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` with the copy's ``lib`` (its root first on ``sys.path``)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


PUBLISH = """
import sys
from pathlib import Path
from lib import config, publish
try:
    total = publish.publish("smoke", Path(sys.argv[1] if len(sys.argv) > 1 else "out"), notebooks=["ZZ_tiny"])
except config.ConfigError as error:
    print("refused:", error)
else:
    print("bytes", total)
"""


@pytest.fixture(scope="module")
def smoke_run(finished_tiny, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the session's finished smoke run of ZZ_tiny, this module's own."""
    return copy_finished(finished_tiny[0], tmp_path_factory.mktemp("publish") / "repo")


@pytest.fixture(scope="module")
def publication(smoke_run: Path) -> Path:
    done = _python(smoke_run, PUBLISH)
    assert done.returncode == 0 and done.stdout.startswith("bytes"), done.stdout + done.stderr
    size = int(done.stdout.split()[1])
    print(f"publication of the smoke ZZ_tiny run: {publish.megabytes(size)}")
    assert 0 < size <= publish.BUDGET_BYTES
    return smoke_run / "out"


@pytest.mark.xdist_group("publish")
def test_the_command_refuses_smoke_in_one_line(smoke_run, tmp_path):
    done = run_cli(smoke_run, "publish", "--profile", "smoke", "--to", str(tmp_path / "site"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"error: {publish.SMOKE_REFUSAL}"]
    assert not (tmp_path / "site").exists()


@pytest.mark.xdist_group("publish")
def test_publish_copies_notebook_claims_manifest_scoreboard_and_report(publication, smoke_run):
    record = published.record(publication)
    assert record["profile"] == "smoke" and record["notebooks"] == ["ZZ_tiny"]
    notebook = nbformat.read(publication / "notebooks" / "ZZ_tiny.ipynb", as_version=4)
    assert any(cell.get("outputs") is not None for cell in notebook.cells)
    entry = json.loads((publication / "notebooks" / "ZZ_tiny.manifest.json").read_text())
    assert {"commit", "code_key", "params_hash", "packages", "wall_time_s", "sources", "params"} <= set(entry)
    assert entry["threads"] >= 1 and entry["cpu"]  # the run's thread count and CPU, from its stamp
    assert entry["earlier_attempts_s"] == [] and entry["lane_time_s"] == entry["wall_time_s"]  # run in one piece
    assert "lib/results.py" in entry["sources"] and entry["params"]["pause_s"] == 0.0
    assert not (publication / "notebooks" / "ZZ_tiny.claims.json").exists()  # the toy notebook logs no claims
    assert (publication / "CLAIMS.md").read_text().startswith("# Claims")
    assert (publication / "report" / "index.html").is_file()
    assert (publication / "report" / "notebooks" / "ZZ_tiny.html").is_file()
    for file in publication.rglob("*"):
        if file.is_file() and file.suffix in (".html", ".json", ".ipynb", ".md"):
            assert str(smoke_run) not in file.read_text(), f"{file} keeps the repository path"


@pytest.mark.xdist_group("publish")
def test_list_published_names_what_changed_and_publish_refuses_stale(publication, smoke_run):
    listed = run_cli(smoke_run, "list", "--published", "out")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert re.search(r"^ZZ_tiny +\d+\.\d lane-min  current$", listed.stdout, re.M), listed.stdout
    assert re.search(r"^lane time \d+\.\d min over 1 of 1 notebooks, \d+\.\d min in two lanes$", listed.stdout, re.M)
    source, params = smoke_run / "lib" / "results.py", smoke_run / "params" / "smoke" / "ZZ_tiny.yaml"
    kept_source, kept_params = source.read_text(), params.read_text()
    try:
        source.write_text(kept_source + "\n# an edit\n")
        params.write_text("pause_s: 0.5\n")
        listed = run_cli(smoke_run, "list", "--published", "out")
        assert "stale: lib/results.py changed; parameter pause_s 0.0 → 0.5" in listed.stdout, listed.stdout
        refused = _python(smoke_run, PUBLISH)
        assert refused.stdout.startswith("refused: ZZ_tiny: results are stale"), refused.stdout + refused.stderr
        assert published.record(publication) is not None  # the previous publication stays
    finally:
        source.write_text(kept_source)
        params.write_text(kept_params)


@pytest.mark.xdist_group("publish")
def test_readme_block_of_a_publication(publication, smoke_run):
    done = _python(smoke_run, "from pathlib import Path\nfrom lib import readme\n"
                              "print(readme.block(Path('out'), Path('.')))")
    assert done.returncode == 0, done.stderr
    assert "Reference run: profile `smoke`" in done.stdout
    assert ("| [ZZ_tiny](out/notebooks/ZZ_tiny.ipynb) | A tiny notebook for runner tests | no claims | "
            "[figures](out/report/gallery.html#ZZ_tiny) |") in done.stdout


@pytest.mark.xdist_group("publish")
def test_a_budget_overrun_is_refused_and_nothing_replaced(smoke_run, tmp_path):
    code = PUBLISH.replace("from lib import config, publish", "from lib import config, publish\n"
                                                              "publish.BUDGET_BYTES = 1000")
    done = _python(smoke_run, code.replace('sys.argv[1] if len(sys.argv) > 1 else "out"', repr(str(tmp_path / "site"))))
    assert "over its 0.0 MB budget; nothing was published" in done.stdout, done.stdout + done.stderr
    assert not (tmp_path / "site").exists() and not (tmp_path / ".site.publishing").exists()



@pytest.mark.xdist_group("publish")
def test_the_record_names_the_commit_of_the_sources_only_from_a_clean_checkout(smoke_run, tmp_path):
    root = copy_finished(smoke_run, tmp_path / "repo")

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                               capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "the run's checkout")
    clean = _python(root, PUBLISH.replace('"out"', '"clean"'))
    assert clean.stdout.startswith("bytes"), clean.stdout + clean.stderr
    assert published.record(root / "clean")["sources_commit"] == git("rev-parse", "HEAD")
    (root / "notes.txt").write_text("a tracked file the commit does not hold\n")
    git("add", "notes.txt")
    dirty = _python(root, PUBLISH.replace('"out"', '"dirty"'))
    assert dirty.stdout.startswith("bytes"), dirty.stdout + dirty.stderr
    assert published.record(root / "dirty")["sources_commit"] is None



PUBLISH_ADDED = """
from pathlib import Path
from lib import config, publish
try:
    publish.publish("smoke", Path("out"), notebooks={notebooks!r}, add={add!r}, drop_stale={drop_stale!r})
except config.ConfigError as error:
    print("refused:", error)
else:
    print("published")
"""


@pytest.mark.xdist_group("publish")
def test_adding_keeps_the_published_notebooks_of_another_checkout_and_refuses_a_stale_one(finished_tiny, tmp_path):
    root = copy_finished(finished_tiny[0], tmp_path / "repo")  # ZZ_tiny done: the run below adds ZZ_twin's
    (root / "notebooks" / "ZZ_twin.py").write_text(
        TINY_NOTEBOOK.replace("ZZ_tiny", "ZZ_twin").replace("A tiny notebook", "A twin notebook"))
    (root / "params" / "smoke" / "ZZ_twin.yaml").write_text("pause_s: 0.0\n")
    add_toy_schema(root, TINY_SCHEMA.replace("ZZ_tiny", "ZZ_twin").replace("class Tiny", "class Twin"))
    done = run_cli(root, "run", "--profile", "smoke", "--quiet")
    assert done.returncode == 0, done.stderr
    first = _python(root, PUBLISH_ADDED.format(notebooks=["ZZ_tiny"], add=False, drop_stale=False))
    assert first.stdout.strip() == "published", first.stdout + first.stderr
    out = root / "out"
    kept_files = {f: (out / f).read_bytes() for f in ("notebooks/ZZ_tiny.ipynb", "notebooks/ZZ_tiny.manifest.json",
                                                      "report/notebooks/ZZ_tiny.html")}
    # ZZ_tiny's run is gone from this checkout, as on a machine that ran only the other notebooks
    shutil.rmtree(root / "results" / "smoke" / "ZZ_tiny")
    for file in (root / "build" / "smoke").glob("ZZ_tiny.*"):
        file.unlink()

    added = _python(root, PUBLISH_ADDED.format(notebooks=["ZZ_twin"], add=True, drop_stale=False))
    assert added.stdout.strip() == "published", added.stdout + added.stderr
    assert published.record(out)["notebooks"] == ["ZZ_tiny", "ZZ_twin"]
    assert {f: (out / f).read_bytes() for f in kept_files} == kept_files
    index = (out / "report" / "index.html").read_text()
    assert index.count('<section class="experiment"') == 2 and "A twin notebook" in index and "A tiny notebook" in index
    assert (out / "report" / "notebooks" / "ZZ_twin.html").is_file()
    listed = run_cli(root, "list", "--published", "out")
    assert all(re.search(rf"^{name} +\d+\.\d lane-min  current$", listed.stdout, re.M)
               for name in ("ZZ_tiny", "ZZ_twin")), listed.stdout

    script = root / "notebooks" / "ZZ_tiny.py"
    script.write_text(script.read_text() + "\n# an edit\n")
    refused = _python(root, PUBLISH_ADDED.format(notebooks=["ZZ_twin"], add=True, drop_stale=False))
    assert refused.stdout.startswith("refused: ZZ_tiny: kept from out/ but its published run is stale: "
                                     "notebooks/ZZ_tiny.py changed"), refused.stdout + refused.stderr
    assert published.record(out)["notebooks"] == ["ZZ_tiny", "ZZ_twin"]  # the publication stays as it was
    dropped = _python(root, PUBLISH_ADDED.format(notebooks=["ZZ_twin"], add=True, drop_stale=True))
    assert dropped.stdout.splitlines() == ["left out ZZ_tiny: its published run is stale: notebooks/ZZ_tiny.py changed",
                                           "published"], dropped.stdout + dropped.stderr
    assert published.record(out)["notebooks"] == ["ZZ_twin"] and not (out / "notebooks" / "ZZ_tiny.ipynb").exists()


def test_published_claims_read_a_publication_and_none_when_a_notebook_logged_none(tmp_path):
    folder = published.default_folder()
    table = publish.published_claims(folder, "E09_null_calibration")
    assert len(table) and set(table.notebook) == {"E09_null_calibration"}
    assert list(table.columns) == ["notebook", *claims.COLUMNS]
    assert publish.published_claims(tmp_path, "E09_null_calibration").empty


def test_a_missing_run_is_refused_naming_the_notebook(sandbox):
    with pytest.raises(config.ConfigError, match=r"^00_theory_checks: was never run to completion; status 'missing'"):
        publish.check_notebooks("default", ["00_theory_checks"])


def test_scrub_replaces_root_home_host_and_user(monkeypatch):
    monkeypatch.setattr(paths, "REPO_ROOT", Path("/srv/checkout/companion"))
    monkeypatch.setenv("HOME", "/home/alice")
    monkeypatch.setattr(socket, "gethostname", lambda: "lab-node-7")
    monkeypatch.setattr(publish.getpass, "getuser", lambda: "alice")
    text = ("/srv/checkout/companion/results/x.parquet · /home/alice/.cache/hf · alice@lab-node-7 · "
            "ran on lab-node-7 by alice · a square root")
    assert publish.scrub(text) == ("./results/x.parquet · ~/.cache/hf · <user>@<host> · ran on <host> by <user> · "
                                   "a square root")


def test_clean_notebook_strips_widgets_and_keeps_the_png(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x", outputs=[
        nbformat.v4.new_output("display_data", data={"image/png": "iVBO", "image/svg+xml": "<svg/>",
                                                     "text/plain": "<Figure>"}),
        nbformat.v4.new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "1"}}),
    ])])
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    nbformat.write(notebook, tmp_path / "n.ipynb")
    cleaned = publish.clean_notebook(tmp_path / "n.ipynb")
    assert "widgets" not in cleaned.metadata
    assert [set(o["data"]) for o in cleaned.cells[0].outputs] == [{"image/png", "text/plain"}]




def test_publishing_by_paper_takes_that_papers_notebooks_and_refuses_an_unknown_id():
    kstar = publish.notebooks_of("default", ["002"])
    assert kstar and all(n.startswith("K") for n in kstar)
    assert set(publish.notebooks_of("default", ["000", "002"])) > set(kstar)
    assert publish.notebooks_of("default", None) == runner.discover("default")
    with pytest.raises(config.ConfigError, match=r"^--paper '9' is not a paper; allowed: 000, 001, 002$"):
        publish.notebooks_of("default", ["9"])


def test_publishing_named_notebooks_takes_those_alone_and_refuses_an_unknown_name():
    assert publish.notebooks_of("default", None, ["K03_task_order", "E01_regimes"]) == ["E01_regimes",
                                                                                       "K03_task_order"]
    assert publish.notebooks_of("default", ["002"], ["K03_task_order", "E01_regimes"]) == ["K03_task_order"]
    assert publish.notebooks_of("default", None, ["k03", "E01"]) == ["E01_regimes", "K03_task_order"]  # short ids
    with pytest.raises(config.ConfigError, match=r"^no notebook 'K9' under profile 'default' \(allowed: a name or its "
                                                 r"short id, .*; available: 00_theory_checks, "):
        publish.notebooks_of("default", None, ["K9"])

