"""lib.sources: the lib sources a piece of code runs, read from real files with ast."""

from pathlib import Path

from lib import paths, sources


def _lib(tmp_path: Path, monkeypatch, files: dict[str, str]) -> Path:
    root = tmp_path / "lib"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.setattr(paths, "LIB_DIR", root)
    return root


def test_imports_are_followed_transitively_at_any_depth(tmp_path, monkeypatch):
    root = _lib(tmp_path, monkeypatch, {
        "a.py": "from lib import b\n", "b.py": "def f():\n    import lib.c\n", "c.py": "", "unused.py": "",
        "pkg/__init__.py": "from lib.pkg.heavy import x\n", "pkg/heavy.py": "x = 1\n",
        "pkg/light.py": "from . import sibling\nfrom .. import c\n", "pkg/sibling.py": "",
    })
    script = tmp_path / "notebook.py"
    script.write_text("from lib import a\nfrom lib.pkg import light\nimport numpy\n")
    names = [sources.name(p) for p in sources.of_file(script)]
    assert names == ["lib/__init__.py", "lib/a.py", "lib/b.py", "lib/c.py", "lib/pkg/__init__.py",
                     "lib/pkg/light.py", "lib/pkg/sibling.py"]  # the package's source, not what it imports
    script.write_text("from lib.pkg import x\n")  # a name of the package itself: its imports run for it
    assert "lib/pkg/heavy.py" in [sources.name(p) for p in sources.of_file(script)]
    before = sources.digest(sources.of_file(script))
    (root / "unused.py").write_text("# edited\n")
    assert sources.digest(sources.of_file(script)) == before
    (root / "pkg" / "heavy.py").write_text("x = 2\n")
    assert sources.digest(sources.of_file(script)) != before


def test_unreadable_code_is_keyed_by_every_source(tmp_path, monkeypatch):
    _lib(tmp_path, monkeypatch, {"a.py": ""})
    assert len(sources.of_file(tmp_path / "missing.py")) == 2
    broken = tmp_path / "broken.py"
    broken.write_text("def (:\n")
    assert sources.of_file(broken) == sources.all_sources()


def test_a_lib_function_runs_its_module_closure():
    from lib import stats

    names = [sources.name(p) for p in sources.of_function(stats.auroc)]
    assert "lib/stats.py" in names and "lib/kstar/protocol/probe_search.py" not in names


def test_a_notebook_runs_its_own_papers_modules_and_no_other_papers(tmp_path, monkeypatch):
    root = _lib(tmp_path, monkeypatch, {
        "config.py": "from lib import papers\n", "papers.py": "import importlib\n",  # papers found at run time
        "pa/__init__.py": "", "pa/paper.py": "from lib.papers import Paper\n", "pa/schemas.py": "",
        "pa/tool.py": "from lib import config\n",
        "pb/__init__.py": "", "pb/paper.py": "from lib.papers import Paper\n", "pb/schemas.py": "",
    })
    script = tmp_path / "notebook.py"
    script.write_text("from lib import config\nfrom lib.pa import tool\n")
    names = [sources.name(p) for p in sources.of_file(script)]
    assert "lib/pa/tool.py" in names and "lib/papers.py" in names
    assert not [n for n in names if n.startswith("lib/pb/")]
    before = sources.digest(sources.of_file(script))
    (root / "pb" / "schemas.py").write_text("# another paper's parameters\n")
    assert sources.digest(sources.of_file(script)) == before
    (root / "pa" / "tool.py").write_text("# this paper's code\nfrom lib import config\n")
    assert sources.digest(sources.of_file(script)) != before
