"""The environment files agree, and CI runs the README's test command."""

import re
import tomllib

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


def test_only_percent_scripts_are_sources():
    config = (paths.REPO_ROOT / "jupytext.toml").read_text()
    assert "py:percent" in config and "jupytext_version" in config
    assert "notebooks/*.ipynb" in (paths.REPO_ROOT / ".gitignore").read_text()
