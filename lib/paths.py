"""Every path the companion reads or writes, built in one place, relative to the repo root.

Layout (docs/ARCHITECTURE.md): ``params/<profile>/<notebook>.yaml`` in, ``results/<profile>/<notebook>/``
and ``figures/<profile>/<notebook>/`` out, executed notebooks under ``build/<profile>/``. A run whose
parameters differ from the YAML (``--set``, an edited parameters cell) is a *variant*: its outputs go
to ``<notebook>@<overrides>`` beside the canonical folder, never into it (:func:`run_name`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: ``extended`` holds YAMLs only for the notebooks it reruns at a larger scale than ``default`` (more families or
#: regimes); a batch under it runs just those.
PROFILES: tuple[str, ...] = ("smoke", "default", "paper", "extended")
VARIANT_SEPARATOR = "@"


def _find_repo_root() -> Path:
    """The directory holding ``pyproject.toml`` above this package (works for editable installs)."""
    here = Path(__file__).resolve().parent
    for candidate in (here, *here.parents):
        if (candidate / "pyproject.toml").is_file() and (candidate / "lib").is_dir():
            return candidate
    raise RuntimeError(f"cannot find the repository root above {here}")


REPO_ROOT: Path = _find_repo_root()
LIB_DIR: Path = REPO_ROOT / "lib"
NOTEBOOKS_DIR: Path = REPO_ROOT / "notebooks"
PARAMS_DIR: Path = REPO_ROOT / "params"
RESULTS_DIR: Path = REPO_ROOT / "results"
FIGURES_DIR: Path = REPO_ROOT / "figures"
BUILD_DIR: Path = REPO_ROOT / "build"
MODELS_DIR: Path = REPO_ROOT / "models"  # offline models converted on first use (generated)
FEATURES_CACHE_DIR: Path = REPO_ROOT / "cache" / "features"  # hidden states keyed by content (generated)
GENERATIONS_CACHE_DIR: Path = REPO_ROOT / "cache" / "generations"  # sampled continuations keyed by content
TABLES_CACHE_DIR: Path = REPO_ROOT / "cache" / "tables"  # simulations shared by notebooks, keyed by content
WHEELS_CACHE_DIR: Path = REPO_ROOT / "cache" / "wheels"  # pinned source wheels (generated)
TASKS_CACHE_DIR: Path = REPO_ROOT / "cache" / "tasks"  # paper 002's built task pools (generated)
DATA_DIR: Path = REPO_ROOT / "data"


def check_profile(profile: str) -> str:
    """Return ``profile`` if it is known, else raise naming the allowed values."""
    if profile not in PROFILES:
        raise ValueError(f"profile={profile!r} is not a profile; allowed: {', '.join(PROFILES)}")
    return profile


def notebook_script(notebook: str) -> Path:
    """The percent-script source of a notebook."""
    return NOTEBOOKS_DIR / f"{notebook}.py"


def params_file(profile: str, notebook: str) -> Path:
    """The YAML parameters of a notebook under a profile."""
    return PARAMS_DIR / check_profile(profile) / f"{notebook}.yaml"


def run_name(notebook: str, variant: str = "") -> str:
    """The folder and stamp name of a run: the notebook's, or ``<notebook>@<variant>`` for a variant."""
    return f"{notebook}{VARIANT_SEPARATOR}{variant}" if variant else notebook


def split_run_name(name: str) -> tuple[str, str]:
    """``(notebook, variant)`` of a name written by :func:`run_name` (variant ``""``: canonical)."""
    notebook, _, variant = name.partition(VARIANT_SEPARATOR)
    return notebook, variant


def results_dir(profile: str, notebook: str, variant: str = "") -> Path:
    """Where a notebook's logged results live (a variant's beside the canonical folder)."""
    return RESULTS_DIR / check_profile(profile) / run_name(notebook, variant)


def figures_dir(profile: str, notebook: str, variant: str = "") -> Path:
    """Where a notebook's figures and tables live."""
    return FIGURES_DIR / check_profile(profile) / run_name(notebook, variant)


def figures_index(profile: str) -> Path:
    """The per-profile index of every figure and table with its caption."""
    return FIGURES_DIR / check_profile(profile) / "INDEX.md"


def report_dir(profile: str) -> Path:
    """The static site ``make report`` writes for a profile (:mod:`lib.report`)."""
    return BUILD_DIR / "report" / check_profile(profile)


def build_dir(profile: str) -> Path:
    """Where executed notebooks and the runner's completion stamps live."""
    return BUILD_DIR / check_profile(profile)


def executed_notebook(profile: str, notebook: str, variant: str = "") -> Path:
    """The executed ``.ipynb`` written by the runner."""
    return build_dir(profile) / f"{run_name(notebook, variant)}.ipynb"


def run_stamp(profile: str, notebook: str, variant: str = "") -> Path:
    """The runner's completion stamp; present only after a successful execution."""
    return build_dir(profile) / f"{run_name(notebook, variant)}.done.json"


def _safe(text: str) -> str:
    """``text`` with every character unsafe in a file name replaced by ``_``."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)


def is_local_model(name: str) -> bool:
    """``name`` is a local folder (it exists, or is written as a path), not a registry name or ``org/model`` hub id."""
    return Path(name).expanduser().exists() or name.startswith((".", "/", "~")) or name.count("/") > 1


def model_slug(name: str) -> str:
    """A readable file-name part naming a model: a registry name or hub id as written (``org/model`` becomes
    ``org--model``); a local folder its last component and 8 hex digits of its resolved path's SHA-256, so two
    folders sharing their last component (``a/harmful``, ``b/harmful``) never share a name."""
    if not is_local_model(name):
        return _safe(name.replace("/", "--"))
    folder = Path(name).expanduser().resolve()
    return f"{_safe(folder.name or 'root')}-{hashlib.sha256(folder.as_posix().encode()).hexdigest()[:8]}"


def audit_file(reference: str, audited: str) -> Path:
    """Where ``python -m lib deltab`` writes an audit: ``results/audits/<reference>__<audited>.json`` of their
    :func:`model_slug` (the same pair of models always gets the same file: a rerun replaces its audit)."""
    return RESULTS_DIR / "audits" / f"{model_slug(reference)}__{model_slug(audited)}.json"


def display(path: Path | str) -> str:
    """``path`` for a message: relative to the repository root when inside it, else absolute."""
    try:
        return relative_to_root(Path(path))
    except ValueError:
        return Path(path).resolve().as_posix()


def relative_to_root(path: Path) -> str:
    """``path`` as a POSIX string relative to the repository root (for captions and manifests)."""
    return Path(path).resolve().relative_to(REPO_ROOT).as_posix()


def from_root(relative: str) -> Path:
    """Resolve a repository-relative path written by :func:`relative_to_root`."""
    return REPO_ROOT / relative
