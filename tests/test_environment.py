"""The environment files agree, and CI runs the README's test command."""

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import yaml

from lib import paths


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement.strip(), maxsplit=1)[0].lower()


def test_every_pyproject_dependency_is_in_environment_yml():
    project = tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text())["project"]
    environment = yaml.safe_load((paths.REPO_ROOT / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    conda_names = {_name(r) for r in pip_section if not r.startswith("-")}
    wanted = project["dependencies"] + project["optional-dependencies"]["dev"]
    assert {_name(r) for r in wanted} - conda_names == set()
    assert "python=3.11" in environment["dependencies"]
    assert "torch==2.13.0" in pip_section


def test_ci_runs_the_readme_test_command():
    readme = (paths.REPO_ROOT / "README.md").read_text()
    ci = (paths.REPO_ROOT / ".ci" / "run").read_text()
    assert "make reproduce" in readme and "make test" in readme
    assert re.search(r"^make test\b", ci, flags=re.M)


def test_jupytext_pairing_round_trips_scripts_unchanged(tmp_path):
    """Syncing a script to .ipynb and back (as JupyterLab does) leaves the source byte-identical."""
    shutil.copy2(paths.REPO_ROOT / "jupytext.toml", tmp_path)
    (tmp_path / "notebooks").mkdir()
    scripts = sorted(paths.NOTEBOOKS_DIR.glob("*.py"))
    copies = [Path(shutil.copy2(script, tmp_path / "notebooks")) for script in scripts]
    # One jupytext process syncs every notebook: a process per notebook cost 34 s of start-up.
    subprocess.run([sys.executable, "-m", "jupytext", "--sync", *map(str, copies)], cwd=tmp_path, check=True,
                   capture_output=True)
    for script, copy in zip(scripts, copies, strict=True):
        assert copy.with_suffix(".ipynb").is_file()
        assert copy.read_text() == script.read_text()
        assert "jupytext_version" not in script.read_text()
    assert "notebooks/*.ipynb" in (paths.REPO_ROOT / ".gitignore").read_text()
