"""lib.results: atomic writes, manifests, completeness, reuse and logging claims (the contract: test_claims.py)."""

import dataclasses
import json
import math
import os
import shutil

import pandas as pd
import pytest
from conftest import use_catalogue

from lib import claims, config, paths, publish, results


def _params(**values):
    return config.validate("00_theory_checks", {"profile": "smoke", **values})


def test_atomic_write_leaves_nothing_half_written(sandbox, monkeypatch):
    target = sandbox / "out" / "file.txt"
    results.atomic_write_text(target, "old")

    def crash(*_):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        results.atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in target.parent.iterdir()] == ["file.txt"]


def test_manifest_records_provenance(sandbox):
    run = results.start(_params(seed=3))
    path = run.save_json("numbers", {"a": 1})
    manifest = results.read_manifest(path)
    assert manifest["file"] == "results/smoke/00_theory_checks@seed=3/numbers.json"  # not the YAML's: a variant
    assert manifest["params"]["seed"] == 3 and manifest["seeds"] == {"seed": 3} and manifest["variant"] == "seed=3"
    assert manifest["params_hash"] == config.params_hash(run.params)
    assert "lib/results.py" in manifest["code"] and manifest["code_hash"] == run.code_hash
    for key in ("git", "packages", "cpu_count", "started", "finished", "wall_time_s", "sha256"):
        assert key in manifest
    assert manifest["packages"]["numpy"]


def test_truncated_or_unmanifested_results_are_incomplete(sandbox):
    run = results.start(_params())
    path = run.save_table("frame", pd.DataFrame({"x": [1, 2, 3]}))
    assert results.complete_results("smoke", "00_theory_checks") == [path]
    path.write_bytes(path.read_bytes()[:10])
    with pytest.raises(results.IncompleteResultError, match="checksum"):
        results.load_table(path)
    assert not run.is_current(path)
    results.manifest_path(path).unlink()
    assert results.complete_results("smoke", "00_theory_checks") == []


def test_a_damaged_result_is_named_corrupt_and_an_interrupted_write_only_incomplete(sandbox, capsys):
    run = results.start(_params())
    path = run.save_json("numbers", {"a": 1})
    path.write_bytes(path.read_bytes()[:5])  # truncated after its manifest was written
    expected = "results/smoke/00_theory_checks/numbers.json does not match the checksum in its manifest: corrupt"
    with pytest.raises(results.CorruptResultError, match=expected):
        results.read_manifest(path)
    assert results.corrupt_results("smoke", "00_theory_checks") == [expected]
    assert not run.is_current(path)
    assert capsys.readouterr().err == f"warning: {expected}; not reused\n"
    results.manifest_path(path).write_text('{"sha256": ')  # a manifest cut short
    with pytest.raises(results.CorruptResultError, match="numbers.json.manifest.json is not valid JSON"):
        results.read_manifest(path)
    results.manifest_path(path).unlink()  # data without its manifest: a write interrupted, not a damaged file
    with pytest.raises(results.IncompleteResultError) as caught:
        results.read_manifest(path)
    assert not isinstance(caught.value, results.CorruptResultError)
    assert results.corrupt_results("smoke", "00_theory_checks") == []
    assert run.json("numbers", lambda: {"a": 2})[0] == {"a": 2} and "corrupt" not in capsys.readouterr().err


def test_cached_table_is_reused_then_recomputed_when_parameters_change(sandbox):
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"x": [len(calls)]})

    first, path = results.start(_params()).table("t", compute)
    again, _ = results.start(_params(n_jobs=2)).table("t", compute)  # execution-only key
    assert len(calls) == 1 and again.equals(first)
    changed, variant = results.start(_params(seed=9)).table("t", compute)
    assert len(calls) == 2 and changed.x.item() == 2
    assert variant.parent.name == "00_theory_checks@seed=9" and json.loads(
        results.manifest_path(variant).read_text())["params"]["seed"] == 9
    assert json.loads(results.manifest_path(path).read_text())["params"]["seed"] == 0  # the canonical one untouched
    params = config.validate("00_theory_checks", {"profile": "smoke", "seed": 9})
    (sandbox / "params" / "smoke").mkdir(parents=True)
    (sandbox / "params" / "smoke" / "00_theory_checks.yaml").write_text("seed: 9\n")
    assert results.start(params).table("t", compute)[1] == path  # now what the YAML gives: the canonical folder
    assert len(calls) == 3


def test_a_code_change_recomputes_what_the_notebook_imports_and_nothing_else(sandbox, monkeypatch):
    shutil.copytree(paths.LIB_DIR, sandbox / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(paths, "LIB_DIR", sandbox / "lib")
    (sandbox / "notebooks").mkdir()
    script = "from lib import config, results\nfrom lib import stats\n"
    (sandbox / "notebooks" / "00_theory_checks.py").write_text(script)
    calls = []

    def compute():
        calls.append(1)
        return {"n": len(calls)}

    def log():
        return results.start(_params()).json("r", compute)[0]["n"]

    assert log() == 1 and log() == 1
    (sandbox / "lib" / "kstar" / "protocol.py").write_text("# edited\n", encoding="utf-8")  # not imported by it
    (sandbox / "lib" / "bias_shift" / "audit.py").write_text("# edited\n", encoding="utf-8")
    assert log() == 1
    with open(sandbox / "lib" / "stats.py", "a") as handle:  # imported directly
        handle.write("# edited\n")
    assert log() == 2
    with open(sandbox / "lib" / "files.py", "a") as handle:  # imported through lib.results
        handle.write("# edited\n")
    assert log() == 3 and log() == 3


def test_recompute_false_never_computes(sandbox):
    with pytest.raises(results.IncompleteResultError, match="recompute is false"):
        results.start(_params(recompute=False)).json("missing", lambda: {"a": 1})


TWO_CLAIMS = """
- {id: c1, kind: paper, section: Thm 3, paper_says: "< 0.006", measures: statement, test: {bound: "<", value: 0.006},
   null_hypothesis: "an error of 0.01", power: {exact: "a closed form"}}
- {id: c2, kind: sanity, section: Thm 3, paper_says: "< 0.006", measures: statement, test: {bound: "<", value: 0.006}}
"""


def test_claims_round_trip_in_field_order(sandbox, monkeypatch):
    use_catalogue(monkeypatch, TWO_CLAIMS)
    evidence = {"c1": claims.Evidence(0.001), "c2": claims.Evidence(0.001)}
    table, path = results.start(_params()).record_claims(evidence)
    assert list(table.columns) == ["paper", *(f.name for f in dataclasses.fields(claims.Claim))] == claims.COLUMNS
    assert table.id.tolist() == ["c1", "c2"] and path.name == "claims.json"
    assert table.paper.tolist() == ["000", "000"]  # the notebook's paper, from its plugin record
    assert table.outcome.tolist() == ["holds", "holds"] and table.power.tolist() == ["exact: a closed form", ""]
    assert json.loads(path.read_text())[0]["power"] == {"exact": "a closed form"}
    with pytest.raises(ValueError, match="disagree: no evidence for c2"):
        results.start(_params()).record_claims({"c1": claims.Evidence(0.001)})


def test_logged_claims_are_strict_json_and_read_back_with_their_nans(sandbox, monkeypatch):
    use_catalogue(monkeypatch, TWO_CLAIMS)
    _, path = results.start(_params()).record_claims({"c1": claims.Evidence(0.001), "c2": claims.Evidence(math.nan)})
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    logged = json.loads(text)
    assert logged[1]["measured"] is None and logged[1]["non_finite"]["measured"] == "nan"
    assert logged[0]["se"] is None and logged[0]["non_finite"] == {"se": "nan"}
    copy = sandbox / "published" / "notebooks" / "00_theory_checks.claims.json"
    copy.parent.mkdir(parents=True)
    shutil.copy2(path, copy)
    for read in (results.load_claims(path), publish.published_claims(copy.parent.parent, "00_theory_checks")):
        assert read.measured.tolist()[0] == 0.001 and read.measured.isna().tolist() == [False, True]
        assert read.se.isna().all() and "non_finite" not in read
    manifest = results.manifest_path(path).read_text()
    assert "NaN" not in manifest and json.loads(manifest)["sha256"] == results.read_manifest(path)["sha256"]


def test_a_cause_must_cite_a_file_the_run_logged(sandbox, monkeypatch):
    use_catalogue(monkeypatch, TWO_CLAIMS)
    run = results.start(_params())
    failing = {"c1": claims.Evidence(0.01, mechanism="the grid is coarse (`grid.parquet`)"), "c2": claims.Evidence(0)}
    with pytest.raises(ValueError, match=r"claim 'c1': its reason or cause cites grid.parquet, which this run did "
                                         r"not log"):
        run.record_claims(failing)
    run.save_table("grid", pd.DataFrame({"n": [1]}))
    table, _ = run.record_claims(failing)
    assert table.verdict.tolist() == ["fails, unexplained", "holds"]  # a cause in words explains nothing
    published = sandbox / "published" / "notebooks"
    published.mkdir(parents=True)
    assert publish.copy_cited("smoke", "00_theory_checks", published) == ["grid.parquet"]
    assert (publish.cited_folder(published, "00_theory_checks") / "grid.parquet").is_file()  # a reader can open it


def test_gather_claims_across_notebooks(sandbox, monkeypatch):
    use_catalogue(monkeypatch, TWO_CLAIMS)
    results.start(_params()).record_claims({"c1": claims.Evidence(0.001), "c2": claims.Evidence(0.001)})
    table = results.gather_claims("smoke")
    assert table.notebook.tolist() == ["00_theory_checks"] * 2 and table.id.tolist() == ["c1", "c2"]
    assert table.columns.tolist() == ["notebook", *claims.COLUMNS]
    assert results.gather_claims("paper").empty


def test_shared_table_computes_once_per_content(sandbox):
    calls = []

    def simulate(a, b=1, n_jobs=1):
        calls.append((a, b))
        return pd.DataFrame({"a": [a], "b": [b]})

    first = results.shared_table(simulate, 1, b=2, n_jobs=1)
    again = results.shared_table(simulate, 1, b=2, n_jobs=2)  # n_jobs never changes a result
    other = results.shared_table(simulate, 1, b=3)
    assert calls == [(1, 2), (1, 3)]
    pd.testing.assert_frame_equal(first, again)
    assert other.b.iloc[0] == 3


def test_a_flipped_byte_in_a_shared_table_is_reported_and_recomputed(sandbox, capsys):
    from conftest import flip_byte

    calls = []

    def simulate(a):
        calls.append(a)
        return pd.DataFrame({"a": [float(a + i) for i in range(50)]})

    clean = results.shared_table(simulate, 1)
    [entry] = (sandbox / "cache" / "tables").glob("*.parquet")
    flip_byte(entry)
    capsys.readouterr()
    pd.testing.assert_frame_equal(results.shared_table(simulate, 1), clean)
    assert calls == [1, 1] and entry.name in capsys.readouterr().err
    results.shared_table(simulate, 1)
    assert calls == [1, 1]


def test_shared_table_is_keyed_by_the_sources_its_function_runs(sandbox, monkeypatch):
    shutil.copytree(paths.LIB_DIR, sandbox / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(paths, "LIB_DIR", sandbox / "lib")
    calls = []

    def simulate(a):
        calls.append(a)
        return pd.DataFrame({"a": [a]})

    results.shared_table(simulate, 1)
    (sandbox / "lib" / "kstar" / "protocol.py").write_text("# edited\n", encoding="utf-8")  # this module never runs it
    results.shared_table(simulate, 1)
    assert calls == [1]
    with open(sandbox / "lib" / "config.py", "a") as handle:  # imported here through lib.results
        handle.write("# edited\n")
    results.shared_table(simulate, 1)
    assert calls == [1, 1]


def test_written_files_take_the_users_umask(sandbox):
    previous = os.umask(0o022)
    try:
        path = results.atomic_write_text(sandbox / "out" / "shared.txt", "x")
        assert path.stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
        os.umask(0o077)
        assert results.atomic_write_text(sandbox / "out" / "private.txt", "x").stat().st_mode & 0o777 == 0o600
    finally:
        os.umask(previous)


def test_a_variants_figures_go_beside_the_canonical_ones(sandbox):
    from lib import plotting

    _, source = results.start(_params(seed=3)).table("t", lambda: pd.DataFrame({"x": [1]}))
    plotting.save_table(pd.DataFrame({"x": [1]}), "tab", "A table.", [source])
    assert (sandbox / "figures" / "smoke" / "00_theory_checks@seed=3" / "tab.md").is_file()
    assert not (sandbox / "figures" / "smoke" / "00_theory_checks").exists()
