"""lib.runner: real papermill runs in a copy of the repository.

Covers skipping, ``--set``, failures that name the notebook and cell while the batch goes on,
``list``, and resumption after a batch is killed.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, TINY_NOTEBOOK, TINY_SCHEMA, add_toy_schema, copy_finished, run_cli, tiny_repository

from lib import config, runner
from lib.models import hub


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository copy holding only the tiny notebook, under the smoke profile."""
    return tiny_repository(tmp_path, only_tiny=True)


@pytest.fixture
def finished(finished_tiny: tuple[Path, subprocess.CompletedProcess], tmp_path: Path) -> Path:
    """:func:`repo` after a successful smoke run of ZZ_tiny (a copy of the session's run, this test's own)."""
    return copy_finished(finished_tiny[0], tmp_path / "finished")


def _stamp(root: Path) -> Path:
    return root / "build" / "smoke" / "ZZ_tiny.done.json"


def _manifest(root: Path, folder: str = "ZZ_tiny", name: str = "first.json") -> Path:
    return root / "results" / "smoke" / folder / f"{name}.manifest.json"


def test_run_skip_force_and_list(finished, finished_tiny):
    """About 20 s: two notebook runs (``--force --reuse``, ``--force``) and three commands, each its own process."""
    repo, first = finished, finished_tiny[1]  # the first run: the one the copy was taken after
    assert first.returncode == 0, first.stderr
    assert "ran  ZZ_tiny" in first.stdout and _stamp(repo).is_file()
    stamp = json.loads(_stamp(repo).read_text())  # what the values depend on beyond code and parameters
    assert stamp["threads"] >= 1 and stamp["cpu"] and stamp["cpu_count"] == os.cpu_count()
    executed = json.loads((repo / "build" / "smoke" / "ZZ_tiny.ipynb").read_text())
    outputs = [o for cell in executed["cells"] if cell["cell_type"] == "code" for o in cell.get("outputs", [])]
    assert "ZZ_tiny: profile smoke (params/smoke/ZZ_tiny.yaml); overrides: none; results: results/smoke/ZZ_tiny/" \
        in "".join(outputs[0]["text"])  # the first output says what runs and where it goes
    assert "done" in run_cli(repo, "list").stdout
    assert "skipped  ZZ_tiny" in run_cli(repo, "run", "--profile", "smoke", "--quiet").stdout
    before = _manifest(repo).read_text()
    reused = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--force", "--reuse")
    assert "ran  ZZ_tiny" in reused.stdout and _manifest(repo).read_text() == before
    forced = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--force")
    assert "ran  ZZ_tiny" in forced.stdout and _manifest(repo).read_text() != before  # recomputed
    assert run_cli(repo, "run", "--profile", "smoke", "--reuse").returncode == 2


def test_overrides_write_a_variant_and_never_touch_the_canonical_run(finished):
    repo = finished
    canonical = {p: p.read_bytes() for p in [_stamp(repo), *(repo / "results/smoke/ZZ_tiny").iterdir()]}
    changed = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--set", "seed=5")
    assert "ran  ZZ_tiny@seed=5" in changed.stdout, changed.stderr
    assert json.loads((repo / "results/smoke/ZZ_tiny@seed=5/first.json").read_text()) == {"seed": 5}
    assert results_params(repo, "ZZ_tiny@seed=5")["seed"] == 5
    failed = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--set", "fail=true")
    assert failed.returncode == 1 and "ZZ_tiny@fail=true: cell" in failed.stderr
    assert {p: p.read_bytes() for p in canonical} == canonical  # the stamp and results of the YAML's run stay
    assert sorted(p.name for p in (repo / "results/smoke/ZZ_tiny").iterdir()) == sorted(p.name for p in canonical
                                                                                        if p != _stamp(repo))
    listing = run_cli(repo, "list").stdout
    main, _, variants = listing.partition("variants")
    assert "ZZ_tiny" in main and "done" in main and "stale" not in main
    assert "smoke     ZZ_tiny@fail=true  missing" in variants and "smoke     ZZ_tiny@seed=5  done" in variants
    assert "skipped  ZZ_tiny@seed=5" in run_cli(repo, "run", "--profile", "smoke", "--quiet", "--set", "seed=5").stdout


def results_params(root: Path, folder: str) -> dict:
    return json.loads(_manifest(root, folder).read_text())["params"]


def test_a_canonical_result_of_other_parameters_is_stale(finished):
    repo = finished
    manifest = _manifest(repo, name="second.json")
    content = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**content, "params_hash": "0" * 64}))  # written by other parameters
    assert "stale" in run_cli(repo, "list").stdout
    rerun = run_cli(repo, "run", "--profile", "smoke", "--quiet")
    assert "ran  ZZ_tiny" in rerun.stdout and "done" in run_cli(repo, "list").stdout
    assert json.loads(manifest.read_text())["params_hash"] != "0" * 64


def test_a_code_change_reruns_what_it_touches_and_nothing_else(finished):
    repo = finished
    before = _manifest(repo).read_text()
    with open(repo / "lib" / "stats.py", "a") as handle:  # ZZ_tiny never imports it
        handle.write("# edited\n")
    assert "skipped  ZZ_tiny" in run_cli(repo, "run", "--profile", "smoke", "--quiet").stdout
    with open(repo / "lib" / "files.py", "a") as handle:  # lib.results imports it
        handle.write("# edited\n")
    assert "stale" in run_cli(repo, "list").stdout
    assert "ran  ZZ_tiny" in run_cli(repo, "run", "--profile", "smoke", "--quiet").stdout
    after = json.loads(_manifest(repo).read_text())
    assert after["code_hash"] != json.loads(before)["code_hash"] and "lib/files.py" in after["code"]


def test_unknown_models_and_layers_fail_before_any_compute(tmp_path):
    root = tiny_repository(tmp_path)
    layer = run_cli(root, "run", "E01_regimes", "--profile", "smoke", "--set", "layer=9")
    assert layer.returncode == 2
    assert "E01_regimes: parameter 'models' = 'tiny-bert': layer=9 is not a layer of 'tiny-bert'" in layer.stderr
    model = run_cli(root, "run", "E01_regimes", "--profile", "smoke", "--set", "models=[no-org/no-model]")
    assert model.returncode == 2 and "'no-org/no-model' has no local copy and the hub is off" in model.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    folder = run_cli(root, "run", "A01_audit_your_model", "--profile", "smoke", "--set", f"model={empty}")
    assert folder.returncode == 2 and "holds no config.json" in folder.stderr
    assert not (root / "build").exists()  # refused before any notebook started


def test_a_successful_run_removes_outputs_the_notebook_no_longer_writes(repo):
    stale = repo / "figures" / "smoke" / "ZZ_tiny" / "renamed_table.md"
    stale.parent.mkdir(parents=True)
    stale.write_text("| an old table |")
    os.utime(stale, (time.time() - 60, time.time() - 60))
    failed = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--set", "fail=true")
    assert failed.returncode == 1 and stale.is_file()  # a failed run prunes nothing
    assert run_cli(repo, "run", "--profile", "smoke", "--quiet").returncode == 0
    assert not stale.exists()


def test_bad_override_fails_before_execution(repo):
    result = run_cli(repo, "run", "--profile", "smoke", "--set", "pause=1")
    assert result.returncode == 2
    assert "unknown parameter 'pause'; did you mean 'pause_s'" in result.stderr
    result = run_cli(repo, "run", "--profile", "smoke", "--set", "pause_s=-1")
    assert result.returncode == 2 and "'pause_s' = -1 is out of range" in result.stderr
    assert not (repo / "build").exists() and not (repo / "results").exists()
    assert run_cli(repo, "run", "nope", "--profile", "smoke").returncode == 2


def test_failing_notebook_is_named_and_the_batch_goes_on(repo):
    (repo / "notebooks" / "ZZ_tiny2.py").write_text(TINY_NOTEBOOK.replace("ZZ_tiny", "ZZ_tiny2"))
    (repo / "params" / "smoke" / "ZZ_tiny2.yaml").write_text("fail: true\n")
    add_toy_schema(repo, TINY_SCHEMA.replace("ZZ_tiny", "ZZ_tiny2").replace("Tiny(", "Tiny2("))
    result = run_cli(repo, "run", "ZZ_tiny2", "ZZ_tiny", "--profile", "smoke", "--quiet", "--jobs", "2")
    assert result.returncode == 1
    assert "ZZ_tiny2: cell" in result.stderr and "ValueError: asked to fail" in result.stderr
    assert "`if params.fail:`" in result.stderr
    assert _stamp(repo).is_file() and not (repo / "build/smoke/ZZ_tiny2.done.json").exists()


def test_figures_command_never_recomputes(repo, finished):
    missing = run_cli(repo, "figures", "--profile", "smoke", "--quiet")
    assert missing.returncode == 0, missing.stderr
    assert "skipped  ZZ_tiny" in missing.stdout and "no results to draw from; run it first: python -m lib run " \
        "ZZ_tiny --profile smoke" in missing.stdout
    assert not (repo / "results").exists() and not _stamp(repo).exists()
    manifest = finished / "results/smoke/ZZ_tiny/first.json.manifest.json"  # after a run
    before = manifest.read_text()
    redraw = run_cli(finished, "figures", "--profile", "smoke", "--quiet")
    assert redraw.returncode == 0, redraw.stderr
    assert manifest.read_text() == before


def test_a_redraw_prints_a_line_per_notebook_and_each_cell_only_when_verbose(finished):
    redraw = run_cli(finished, "figures", "--profile", "smoke")
    assert redraw.returncode == 0, redraw.stderr
    lines = redraw.stderr.splitlines()
    assert [line for line in lines if "cell " in line] == []
    assert [line.split(" (")[0] for line in lines if line.startswith("batch: ")] == ["batch: 1 of 1 ended"]
    verbose = run_cli(finished, "figures", "--profile", "smoke", "--verbose")
    assert "cell 3/5 `import time`" in verbose.stderr


#: ZZ_tiny whose second result waits while ``ZZ_HOLD`` is set: a run started with it is killed between its results,
#: and a run without it goes straight through (same script, same parameters).
HELD_NOTEBOOK = TINY_NOTEBOOK.replace('second, _ = run.json(', """import os
held_until = time.monotonic() + 300
while os.environ.get("ZZ_HOLD") and time.monotonic() < held_until:
    time.sleep(0.05)
second, _ = run.json(""")


def test_killed_batch_resumes_without_redoing_finished_work(repo):
    (repo / "notebooks" / "ZZ_tiny.py").write_text(HELD_NOTEBOOK)
    process = subprocess.Popen(
        [sys.executable, "-m", "lib", "run", "--profile", "smoke", "--quiet"],
        cwd=repo, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "ZZ_HOLD": "1"},
    )
    first_manifest = repo / "results/smoke/ZZ_tiny/first.json.manifest.json"
    try:
        deadline = time.monotonic() + 120
        while not first_manifest.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert first_manifest.exists(), "the notebook never logged its first result"
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert not _stamp(repo).exists()
    assert "missing" in run_cli(repo, "list").stdout
    before = first_manifest.read_text()
    resumed = run_cli(repo, "run", "--profile", "smoke", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert "ran  ZZ_tiny" in resumed.stdout and _stamp(repo).is_file()
    assert first_manifest.read_text() == before  # reused, not recomputed
    stamp = json.loads(_stamp(repo).read_text())
    assert sorted(stamp["results"]) == ["results/smoke/ZZ_tiny/first.json", "results/smoke/ZZ_tiny/second.json"]


def test_a_changed_notebook_recomputes_the_results_its_old_cells_wrote(finished):
    """Run reuses a result whose parameters and lib sources match; the notebook's own cells are the runner's to
    check: after an edit of the script its logged results are discarded, never read as this script's."""
    repo = finished
    before = _manifest(repo).read_text()
    assert json.loads((repo / "build/smoke/ZZ_tiny.script.json").read_text())["script_sha256"]
    script = repo / "notebooks" / "ZZ_tiny.py"
    script.write_text(script.read_text() + "\n# %%\nprint('a new cell')\n")
    rerun = run_cli(repo, "run", "--profile", "smoke", "--quiet")
    assert "ran  ZZ_tiny" in rerun.stdout, rerun.stderr
    assert _manifest(repo).read_text() != before  # recomputed by the new script
    again = _manifest(repo).read_text()
    assert "skipped  ZZ_tiny" in run_cli(repo, "run", "--profile", "smoke", "--quiet").stdout
    assert run_cli(repo, "run", "--profile", "smoke", "--quiet", "--force", "--reuse").returncode == 0
    assert _manifest(repo).read_text() == again  # same script: reused


def test_smoke_and_default_run_one_notebook_per_core_by_default_and_the_papers_models_one_at_a_time():
    cores = len(os.sched_getaffinity(0))
    assert [runner.default_jobs(p) for p in ("smoke", "default")] == [cores, cores]
    assert [runner.default_jobs(p) for p in ("paper", "extended")] == [1, 1]
    with pytest.raises(ValueError, match="profile='fast'.*allowed: smoke"):
        runner.default_jobs("fast")


@pytest.mark.parametrize("notebook", ["D01_deltab", "D02_deltab_ablations"])
def test_paper_placeholders_are_refused_in_one_line_before_any_hub_lookup(notebook):
    with pytest.raises(config.ConfigError) as refused:
        runner.check_models(config.resolve(notebook, "paper"))  # offline: the reference would fail later
    message = str(refused.value)
    placeholder = f"{notebook}: parameter 'checkpoint_paths' = 'checkpoints/unharmful' (and 6 more) is a placeholder"
    assert placeholder in message
    assert "put there a local folder with config.json and weights, or a hub id" in message
    assert f"params/paper/{notebook}.yaml or with --set checkpoint_paths=[...]" in message
    assert "'external_scores_csv'" in message and "\n" not in message and "hub is off" not in message


def test_a_csv_placeholder_says_what_the_file_holds_and_real_paths_pass(tmp_path, monkeypatch):
    checkpoint = tmp_path / "checkpoints" / "mine"
    checkpoint.mkdir(parents=True)
    params = config.resolve("D02_deltab_ablations", "paper", {"checkpoint_paths": [str(checkpoint)]})
    with pytest.raises(config.ConfigError, match=r"'external_scores_csv' = 'checkpoints/wildguard_scores.csv' is a "
                       r"placeholder \(no such path\); put there the path of your CSV file \(CSV checkpoint,group,"):
        runner.check_placeholders(params)
    assert not runner.is_placeholder(str(checkpoint)) and not runner.is_placeholder("meta-llama/Llama-3.1-8B")
    monkeypatch.setattr(runner.paths, "REPO_ROOT", tmp_path)
    assert not runner.is_placeholder("checkpoints/mine") and runner.is_placeholder("checkpoints/other")


def test_a_hub_refusal_with_the_hub_on_names_the_token_not_the_offline_switch(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    message = str(hub.hub_unavailable("meta-llama/Llama-3.1-8B", OSError("401 Client Error: gated repo\nmore")))
    assert "could not be fetched from the hub (OSError: 401 Client Error: gated repo)" in message
    assert "meta-llama/Llama-3.1-8B is gated" in message and "HF_TOKEN" in message and "HF_HUB_OFFLINE=1" not in message
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert "has no local copy and the hub is off" in str(hub.hub_unavailable("meta-llama/Llama-3.1-8B"))
    assert "gated" not in str(hub.hub_unavailable("gpt2"))  # an open model gets no token advice


def _error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def _half_written(root: Path) -> list[Path]:
    """Temporary files of atomic writes and write probes left under the output folders."""
    found = []
    for folder in ("results", "figures", "build"):
        if (root / folder).is_dir():
            found += [p for p in (root / folder).rglob(".*") if p.name.endswith(".tmp") or "write-check" in p.name]
    return found


def test_a_model_folder_without_weights_is_refused_in_one_line_before_any_compute(tmp_path):
    root = tiny_repository(tmp_path)
    folder = tmp_path / "no-weights"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "bert", "num_hidden_layers": 2}))
    result = run_cli(root, "run", "A01_audit_your_model", "--profile", "smoke", "--quiet", "--set", f"model={folder}")
    lines = _error_lines(result.stderr)
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    assert f"parameter 'model' = '{folder}': model folder '{folder}' has config.json but no weights" in lines[0]
    assert "expected model.safetensors or model.safetensors.index.json" in lines[0]
    assert not (root / "build").exists() and not (root / "results").exists()


def test_a_broken_config_json_names_the_file_and_the_position(tmp_path):
    root = tiny_repository(tmp_path)
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "bert",\n "num_hidden_layers": 2,,\n}')
    (folder / "model.safetensors").write_bytes(b"")  # present: the config is what is wrong
    result = run_cli(root, "run", "A01_audit_your_model", "--profile", "smoke", "--quiet", "--set", f"model={folder}")
    lines = _error_lines(result.stderr)
    assert result.returncode == 2 and len(lines) == 1, result.stderr
    position = "Expecting property name enclosed in double quotes at line 2, column 25"
    assert f"{folder / 'config.json'} is not valid JSON: {position}" in lines[0]
    assert not (root / "build").exists() and not (root / "results").exists()


def test_an_unwritable_results_folder_fails_in_one_line_and_the_batch_table_is_printed(repo):
    (repo / "results").mkdir()
    (repo / "results" / "smoke").write_text("a file where the profile's results folder belongs")  # stops root too
    result = run_cli(repo, "run", "--profile", "smoke", "--quiet")
    lines = _error_lines(result.stderr)
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert lines[0] == ("FAILED ZZ_tiny: cannot write results/smoke/ZZ_tiny/: results/smoke is a file, not a folder; "
                        "nothing was run or removed: make it a writable folder (or free space) and rerun")
    assert result.stdout.startswith("status  notebook") and "failed  ZZ_tiny" in result.stdout
    assert not _stamp(repo).exists() and not (repo / "build" / "smoke" / "ZZ_tiny.ipynb").exists()
    assert "ZZ_tiny   missing" in run_cli(repo, "list").stdout and not _half_written(repo)


def test_with_force_an_unwritable_output_folder_removes_nothing(finished):
    repo = finished
    kept = {p: p.read_bytes() for p in [_stamp(repo), *(repo / "results/smoke/ZZ_tiny").iterdir()]}
    (repo / "figures" / "smoke").mkdir(parents=True, exist_ok=True)
    (repo / "figures" / "smoke" / "ZZ_tiny").write_text("a file where the figures folder belongs")  # stops root too
    result = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--force")
    lines = _error_lines(result.stderr)
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert lines[0].startswith("FAILED ZZ_tiny: cannot write figures/smoke/ZZ_tiny/: figures/smoke/ZZ_tiny is a file")
    assert "failed  ZZ_tiny" in result.stdout
    assert {p: p.read_bytes() for p in kept} == kept  # the stamp and every result as they were: still done
    assert "ZZ_tiny   done" in run_cli(repo, "list").stdout and not _half_written(repo)


def _read_only_prefix(folder: Path) -> list[str] | None:
    """A command prefix that runs with ``folder`` read-only: chmod for a user; for root (whom chmod cannot stop) a
    read-only bind mount in a private mount namespace, where ``unshare`` allows it; else None."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return []
    mount = f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" && exec "$@"'
    probe = subprocess.run(["unshare", "-m", "sh", "-c", mount, "sh", "true"], capture_output=True)
    return ["unshare", "-m", "sh", "-c", mount, "sh"] if probe.returncode == 0 else None


def test_a_read_only_results_folder_with_force_keeps_the_run_done(finished):
    repo = finished
    folder = repo / "results" / "smoke" / "ZZ_tiny"
    kept = {p: p.read_bytes() for p in [_stamp(repo), *folder.iterdir()]}
    prefix = _read_only_prefix(folder)
    if prefix is None:
        pytest.skip("running as root without a mount namespace: no folder is read-only to root")
    try:
        command = [*prefix, sys.executable, "-m", "lib", "run", "--profile", "smoke", "--quiet", "--force"]
        result = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=600,
                                env={**os.environ, "HF_HUB_OFFLINE": "1"})
    finally:
        folder.chmod(0o755)
    lines = _error_lines(result.stderr)
    assert result.returncode == 1 and len(lines) == 1, result.stderr
    assert lines[0].startswith("FAILED ZZ_tiny: cannot write results/smoke/ZZ_tiny/: [Errno ")
    assert "nothing was run or removed" in lines[0] and "failed  ZZ_tiny" in result.stdout
    assert {p: p.read_bytes() for p in kept} == kept
    assert "ZZ_tiny   done" in run_cli(repo, "list").stdout and not _half_written(repo)


def test_a_second_run_of_a_notebook_waits_for_the_first_and_a_dead_holder_blocks_nothing(repo):
    lock_path = repo / "build" / "smoke" / "ZZ_tiny.lock"
    lock_path.parent.mkdir(parents=True)
    with open(lock_path, "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # this test process is the first run
        held.write(f"{os.getpid()}\n")
        held.flush()
        second = subprocess.Popen(
            [sys.executable, "-m", "lib", "run", "--profile", "smoke", "--quiet"], cwd=repo, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )
        said = second.stderr.readline()
        assert f"ZZ_tiny: another run of this notebook is in progress (pid {os.getpid()}, " \
               "build/smoke/ZZ_tiny.lock); waiting for it to finish" in said
        assert second.poll() is None and not _stamp(repo).exists()  # still waiting: nothing ran
    stdout, stderr = second.communicate(timeout=300)
    assert second.returncode == 0 and "ran  ZZ_tiny" in stdout, stderr
    assert lock_path.read_text() == f"{second.pid}\n"  # left behind by a finished process: it holds nothing
    again = run_cli(repo, "run", "--profile", "smoke", "--quiet", "--force")
    assert again.returncode == 0 and "ran  ZZ_tiny" in again.stdout and "in progress" not in again.stderr


def test_a_damaged_result_is_listed_corrupt_and_said_so_when_recomputed(finished):
    repo = finished
    result = repo / "results" / "smoke" / "ZZ_tiny" / "first.json"
    result.write_bytes(result.read_bytes()[:3])
    listed = run_cli(repo, "list").stdout
    assert "ZZ_tiny" in listed and " corrupt " in listed.split("ZZ_tiny", 1)[1].splitlines()[0]
    assert "corrupt: results/smoke/ZZ_tiny/first.json does not match the checksum in its manifest: corrupt; the " \
           "next run computes it again" in listed
    rerun = run_cli(repo, "run", "--profile", "smoke", "--quiet")
    assert rerun.returncode == 0 and "ran  ZZ_tiny" in rerun.stdout
    assert "ZZ_tiny: results/smoke/ZZ_tiny/first.json does not match the checksum in its manifest: corrupt; not " \
           "reused" in rerun.stderr
    assert "done" in run_cli(repo, "list").stdout.split("ZZ_tiny", 1)[1].splitlines()[0]


def test_a_mistyped_notebook_name_gets_the_closest_one(repo):
    result = run_cli(repo, "run", "ZZ_tiyn", "--profile", "smoke")
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "error: no notebook 'ZZ_tiyn' under profile 'smoke'; did you mean 'ZZ_tiny'? (allowed: a name or its " \
           "short id, the part before '_', in any case, e.g. ZZ for ZZ_tiny; available: ZZ_tiny)" in result.stderr
    assert "did you mean" not in run_cli(repo, "figures", "nothing_alike", "--profile", "smoke").stderr


def test_a_short_id_in_any_case_names_the_notebook(repo):
    result = run_cli(repo, "run", "zz", "--profile", "smoke", "--quiet")
    assert result.returncode == 0, result.stderr
    assert "ran  ZZ_tiny" in result.stdout


READER_SCHEMA = '''
from typing import ClassVar


@register("ZZ_reader")
@dataclass(frozen=True)
class Reader(Tiny):
    reads: ClassVar[tuple[str, ...]] = ("ZZ_tiny",)
'''


def test_a_notebook_runs_after_the_notebook_it_reads_and_goes_stale_when_that_one_reruns(repo):
    """Over 20 s: four notebook runs (the order needs both run, the staleness a rerun of the producer, then the
    reader's rerun) and two listings, each its own process; no finished state can stand in for them."""
    add_toy_schema(repo, READER_SCHEMA)
    (repo / "notebooks" / "ZZ_reader.py").write_text(TINY_NOTEBOOK.replace("ZZ_tiny", "ZZ_reader"))
    (repo / "params" / "smoke" / "ZZ_reader.yaml").write_text("{}\n")
    both = run_cli(repo, "run", "ZZ_reader", "ZZ_tiny", "--profile", "smoke", "--quiet")
    assert both.returncode == 0, both.stderr
    finished = {n: json.loads((repo / "build" / "smoke" / f"{n}.done.json").read_text())["finished"]
                for n in ("ZZ_tiny", "ZZ_reader")}
    assert finished["ZZ_tiny"] < finished["ZZ_reader"]  # asked for second, run first
    listed = run_cli(repo, "list").stdout
    assert all("done" in line for line in listed.splitlines() if "ZZ_" in line), listed
    assert run_cli(repo, "run", "ZZ_tiny", "--profile", "smoke", "--quiet", "--force").returncode == 0
    stale = [line for line in run_cli(repo, "list").stdout.splitlines() if "ZZ_reader" in line]
    assert stale and "stale" in stale[0]
    assert "ran  ZZ_reader" in run_cli(repo, "run", "--profile", "smoke", "--quiet").stdout


def test_the_run_order_puts_what_a_notebook_reads_first_and_refuses_a_cycle():
    from types import SimpleNamespace

    a, b, c = (SimpleNamespace(notebook=n, reads=r) for n, r in (("A", ("B",)), ("B", ()), ("C", ("A",))))
    assert [p.notebook for p in runner.run_order([c, a, b])] == ["B", "A", "C"]
    assert [p.notebook for p in runner.run_order([a])] == ["A"]  # a producer outside the batch is not waited for
    loop = SimpleNamespace(notebook="B", reads=("A",))
    with pytest.raises(config.ConfigError, match="in a cycle: A → B"):
        runner.run_order([a, loop])


def test_a_core_command_parses_without_the_papers_command_modules_and_help_lists_them_all():
    """``python -m lib run`` and the other core commands never import a paper's command module (its models and
    statistics); help, a paper's command and a mistyped one build every command."""
    code = ("import sys\n"
            "from lib import papers\n"
            "from lib.__main__ import _parser\n"
            "for argv in (['run', 'E01_regimes'], ['list'], ['publish'], ['kstar'], []):\n"
            "    usage = _parser(argv).format_usage()\n"
            "    print(any(m in sys.modules for m in papers.commands().values()), all(c in usage for c in "
            "papers.commands()))\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:5] == ["False False", "False False", "False False", "True True", "True True"]


def test_lanes_start_the_longest_chain_first_and_a_reader_never_waits_in_a_lane():
    from types import SimpleNamespace

    a, b, c, d = (SimpleNamespace(notebook=n, reads=r)
                  for n, r in (("A", ("B",)), ("B", ()), ("C", ("Z",)), ("D", ())))
    batch, seconds = {"A", "B", "C", "D"}, {"A": 500.0, "B": 10.0, "C": 100.0, "D": None}
    started, pending, ended = [], [b, a, c, d], set()
    while pending:
        ready = runner.next_ready(pending, batch, ended, seconds)
        if ready is None:  # only A is left and B, which it reads, has not ended
            assert [p.notebook for p in pending] == ["A"] and "B" not in ended
            ended.add("B")
            continue
        pending.remove(ready)
        started.append(ready.notebook)
    # D was never timed, so it may be long; B, short itself, comes next: A, the longest, reads it (a chain of 510 s);
    # C reads a notebook outside the batch, so it waits for nothing; A starts only once B has ended.
    assert started == ["D", "B", "C", "A"]


def test_the_critical_path_of_a_notebook_adds_the_longest_chain_of_its_readers():
    from types import SimpleNamespace

    a, b, c, d = (SimpleNamespace(notebook=n, reads=r)
                  for n, r in (("A", ("B",)), ("B", ("C",)), ("C", ()), ("D", ("C",))))
    chains = runner.critical_paths([a, b, c, d], {"A": 5.0, "B": 1.0, "C": 2.0, "D": 3.0})
    assert chains == {"A": 5.0, "B": 6.0, "C": 8.0, "D": 3.0}  # C: itself, then B, then A (the longer of B→A and D)
    assert runner.critical_paths([a, b], {"A": None, "B": 1.0}) == {"A": float("inf"), "B": float("inf")}


def test_the_batch_line_says_what_ended_the_lane_time_left_and_the_earliest_end():
    from datetime import UTC, datetime

    now = datetime(2026, 12, 6, 6, 0, tzinfo=UTC)
    ended = runner.Outcome("E03_ground_truth", "ran", 528.0)
    line = runner.batch_line(ended, 2, 24, [3600.0, 1800.0, 0.0], 1200.0, 2, now)
    assert line == ("batch: 2 of 24 ended (E03_ground_truth ran, 8.8 min) · 20.0 min in · about 90 lane-min left by "
                    "recorded times · ends about 06:45 UTC at 2 busy lanes")
    unknown = runner.batch_line(ended, 2, 24, [3600.0, None], 1200.0, 2, now)
    assert unknown.endswith("about 60 lane-min left by recorded times and 1 never timed at these parameters · ends "
                            "about 06:30 UTC at 2 busy lanes or later")
    assert runner.batch_line(ended, 24, 24, [], 7200.0, 2, now) == \
        "batch: 24 of 24 ended (E03_ground_truth ran, 8.8 min) in 120.0 min"
    assert runner.batch_line(ended, 2, 24, None, 1200.0, 2, now) == \
        "batch: 2 of 24 ended (E03_ground_truth ran, 8.8 min) · 20.0 min in"  # a redraw: no end to estimate


def test_earlier_attempts_group_results_by_kernel_start_oldest_first_without_the_finishing_one():
    found = [
        {"started": "2026-12-06T05:25:41+00:00", "wall_time_s": 10.0},  # the attempt that finished
        {"started": "2026-12-06T04:21:37+00:00", "wall_time_s": 535.4},
        {"started": "2026-12-06T04:21:37+00:00", "wall_time_s": 2672.3},  # its last kept result
        {"started": "2026-12-05T23:00:00+00:00", "wall_time_s": 60.0},
        {"started": "2026-12-06T05:25:41+00:00", "wall_time_s": 900.0},
        {"wall_time_s": 7.0},  # no kernel start: says nothing of an attempt
    ]
    assert runner.earlier_attempts(found) == [60.0, 2672.3]
    assert runner.earlier_attempts(found[:1]) == [] and runner.earlier_attempts([]) == []


def test_a_notebook_resumed_in_a_later_attempt_is_timed_as_one_piece(sandbox):
    """The first attempt logs a result and is stopped; the second reuses it and finishes. The lane time is the
    second attempt's seconds plus the first's up to the result it kept."""
    from lib import paths, results

    params = config.validate("00_theory_checks", {"profile": "smoke"})
    kept = results.start(params).save_json("kept", {"a": 1})
    time.sleep(0.01)
    second = results.start(params)
    assert second.is_current(kept)  # the resumed attempt reuses it
    made = second.save_json("made", {"b": 2})
    first_reached = results.read_manifest(kept)["wall_time_s"]
    stamp = {"seconds": 5.0, "results": [paths.relative_to_root(made), paths.relative_to_root(kept)]}
    assert runner.lane_seconds(stamp) == 5.0 + first_reached
    assert runner.lane_seconds({**stamp, "results": [paths.relative_to_root(made)]}) == 5.0  # one piece
    assert runner.lane_seconds({"results": []}) is None


def test_the_expected_time_is_the_last_stamp_else_the_published_run_of_that_profile(tmp_path, monkeypatch):
    from lib import paths, published

    monkeypatch.setattr(paths, "BUILD_DIR", tmp_path / "build")
    monkeypatch.setattr(published, "default_folder", lambda: tmp_path / "published")
    params = config.resolve("E05_orthogonality", "default")
    same = config.params_hash(params)
    assert runner.expected_seconds(params) is None  # neither a stamp nor a publication
    (tmp_path / "published" / "notebooks").mkdir(parents=True)
    (tmp_path / "published" / "PUBLICATION.json").write_text(json.dumps({"profile": "default"}))
    manifest = published.manifest_file(tmp_path / "published", "E05_orthogonality")
    manifest.write_text(json.dumps({"wall_time_s": 18.5, "params_hash": same}))
    assert runner.expected_seconds(params) == 18.5
    assert runner.expected_seconds(config.resolve("E05_orthogonality", "default", {"seed": 1})) is None
    manifest.write_text(json.dumps({"wall_time_s": 18.5, "params_hash": "another scale"}))
    assert runner.expected_seconds(params) is None  # measured at another scale: says nothing of this one
    manifest.write_text(json.dumps({"wall_time_s": 18.5, "lane_time_s": 40.0, "params_hash": same}))
    assert runner.expected_seconds(params) == 40.0  # the whole notebook, its interrupted attempts included
    (tmp_path / "published" / "PUBLICATION.json").write_text(json.dumps({"profile": "paper"}))
    assert runner.expected_seconds(params) is None  # another profile's times say nothing of this one's
    paths.run_stamp("default", "E05_orthogonality").parent.mkdir(parents=True)
    paths.run_stamp("default", "E05_orthogonality").write_text(json.dumps({"seconds": 7.25, "params_hash": same}))
    assert runner.expected_seconds(params) == 7.25
    paths.run_stamp("default", "E05_orthogonality").write_text(json.dumps({"seconds": 7.25, "params_hash": "old"}))
    assert runner.expected_seconds(params) is None
