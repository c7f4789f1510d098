"""lib.defaults: the schema is the one home of every default; the cells and default YAMLs are its copies.

The check runs on the repository (every copy as the schema writes it) and on a copy with one edited cell
value and one edited YAML value, which it must name: notebook, field and both values, one line each.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lib import config, defaults, paths

REPO = paths.REPO_ROOT


def test_every_cell_and_default_yaml_is_what_the_schema_writes():
    problems = defaults.check()
    assert not problems, "\n".join(problems[:20]) + "\n(run `make params`)"


def test_the_cell_is_written_from_the_schema_in_its_order():
    schema = config.schema_for("E08_leakage")
    lines = defaults.cell_lines("E08_leakage")
    assert [line.split(" = ")[0] for line in lines] == [f.name for f in dataclasses.fields(schema)]
    assert lines[0] == ('profile = "default"  # choose a profile without editing this file: python -m lib run E08 '
                        "--profile smoke|default|paper, or the Lab's copy lab/<profile>/E08_leakage.ipynb")
    assert 'models = ["minilm", "smollm2-135m"]  # registry names, hub ids or local checkpoint folders' in lines
    assert "n_jobs = -1  # worker processes (-1: this process's share of cores); results do not depend on it" in lines


@pytest.mark.parametrize(("value", "text"), [
    ((0.5, 1.0), "[0.5, 1.0]"), (((2, 3), (4, 5)), "[[2, 3], [4, 5]]"), ("mid", '"mid"'), (None, "None"),
    (True, "True"), (2e-4, "0.0002"), (100_000, "100000"), ("a\n\nb {x}", '"a\\n\\nb {x}"'), ((), "[]"),
])
def test_literals_read_as_the_cells_write_them(value, text):
    assert defaults.literal(value) == text


def test_write_replaces_only_the_parameters_cell():
    script = '# %%\nimport x\n\n# %% tags=["parameters"]\na = 1  # old\nb = 2  # old\n\n# %%\nprint(a)\n'
    new = defaults.rewrite_cell(script, ["a = 3  # new"])
    assert new == '# %%\nimport x\n\n# %% tags=["parameters"]\na = 3  # new\n\n# %%\nprint(a)\n'


def test_yaml_keeps_its_notes_and_loses_its_values():
    text = defaults.yaml_text("K04_synthetic_world", f"{defaults.LEGACY_HEADER}\n# measured: 12 min\nn_jobs: 1\n")
    assert text.splitlines()[2:] == ["# measured: 12 min"]
    assert config.parse_yaml(text) is None


@pytest.fixture
def copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The notebooks and params of the repository in ``tmp_path``, lib.paths pointed there."""
    for folder in ("notebooks", "params"):
        shutil.copytree(REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("*.ipynb"))
    for name, sub in (("REPO_ROOT", ""), ("NOTEBOOKS_DIR", "notebooks"), ("PARAMS_DIR", "params")):
        monkeypatch.setattr(paths, name, tmp_path / sub if sub else tmp_path)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_check_names_an_edited_cell_value_and_an_edited_yaml_value(copy: Path):
    _edit(copy / "notebooks" / "E08_leakage.py", "\nn = 300  #", "\nn = 301  #")
    with open(copy / "params" / "default" / "K03_task_order.yaml", "a", encoding="utf-8") as handle:
        handle.write("cap: 200\n")
    assert defaults.check() == [
        "notebooks/E08_leakage.py: n: cell 301, schema 300",
        "params/default/K03_task_order.yaml: cap: YAML 200, schema 300",
    ]
    defaults.write()
    assert defaults.check() == []
    assert "\nn = 300  # texts per dataset" in (copy / "notebooks" / "E08_leakage.py").read_text(encoding="utf-8")


def test_the_check_names_a_comment_a_copied_default_and_a_parameter_the_schema_lacks(copy: Path):
    script = copy / "notebooks" / "K01_kstar.py"
    _edit(script, "\nn_jobs = 1  #", "\nseed = 0  # unused\nn_jobs = 1  #")
    _edit(script, "# δ of the McDiarmid radius (A.1.8)", "# δ")
    (copy / "params" / "default" / "E01_regimes.yaml").write_text("n_jobs: -1\n", encoding="utf-8")
    assert defaults.check() == [
        "params/default/E01_regimes.yaml: n_jobs: YAML -1, a copy of the schema's default: remove it",
        "notebooks/K01_kstar.py: precision_delta: cell comment 'δ', schema doc 'δ of the McDiarmid radius (A.1.8)'",
        "notebooks/K01_kstar.py: seed: cell 0, not in the schema",
    ]


def test_the_command_exits_1_naming_the_drift(copy: Path):
    _edit(copy / "notebooks" / "E08_leakage.py", "\nn = 300  #", "\nn = 301  #")
    assert defaults.main(["--check"]) == 1
    assert defaults.main(["--write"]) == 0 and defaults.main(["--check"]) == 0


def test_the_module_runs_from_the_command_line():
    done = subprocess.run([sys.executable, "-m", "lib.defaults", "--check"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
