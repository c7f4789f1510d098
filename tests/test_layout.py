"""The house rules of lib/ (docs/ARCHITECTURE.md): the core never imports a paper, papers never import each other,
no import cycle anywhere. Read from the sources with ``ast``, function-level imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lib import papers, paths

#: The paper packages, as their plugin records declare them (lib.papers discovers them).
PAPERS = tuple(p.package.removeprefix("lib.") for p in papers.all_papers())


def _module_name(path: Path) -> str:
    parts = path.relative_to(paths.REPO_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in paths.LIB_DIR.rglob("*.py")}


def _imports(path: Path, known: set[str]) -> set[str]:
    """Every lib module that ``path`` imports, at any depth of the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("lib"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("lib"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if candidate in known else node.module)
    return {name for name in found if name in known and name != "lib"}


def _paper(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in PAPERS else None


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, set(modules)) for name, path in modules.items()}


def test_every_paper_package_exists_and_says_what_it_holds():
    for paper in PAPERS:
        init = paths.LIB_DIR / paper / "__init__.py"
        assert init.is_file(), f"lib/{paper}/ is not a package"
        assert ast.get_docstring(ast.parse(init.read_text())), f"lib/{paper}/__init__.py has no docstring"


def test_the_three_papers_are_discovered_with_their_records():
    assert [(p.id, p.package) for p in papers.all_papers()] == [
        ("000", "lib.bias_probes"), ("001", "lib.bias_shift"), ("002", "lib.kstar")]
    assert all(p.title and p.prefixes and p.schemas.startswith(p.package + ".") for p in papers.all_papers())


def test_core_never_imports_a_paper(graph):
    offences = {m: sorted(t for t in targets if _paper(t)) for m, targets in graph.items() if _paper(m) is None}
    assert not {m: t for m, t in offences.items() if t}


def _code_strings(tree: ast.AST) -> list[str]:
    """Every string constant of a module that is not a docstring."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def test_no_core_module_names_a_paper_package():
    """The core finds the papers through their records; no core code spells a paper package's name."""
    names = [f"lib.{paper}" for paper in PAPERS] + [f"lib/{paper}" for paper in PAPERS]
    for module, path in _modules().items():
        if _paper(module) is None:
            spelled = [text for text in _code_strings(ast.parse(path.read_text(encoding="utf-8")))
                       if any(name in text for name in names)]
            assert not spelled, f"{module} names a paper package: {spelled}"


def test_every_notebook_belongs_to_one_paper_and_never_names_its_paper_itself():
    for script in sorted(paths.NOTEBOOKS_DIR.glob("*.py")):
        owners = [p.id for p in papers.all_papers() if p.owns(script.stem)]
        assert len(owners) == 1, f"{script.name} matches the notebook prefixes of papers {owners}"
        calls = [node for node in ast.walk(ast.parse(script.read_text(encoding="utf-8")))
                 if isinstance(node, ast.Call) and any(k.arg == "paper" for k in node.keywords)]
        assert not calls, f"{script.name} passes paper= itself: a notebook's paper is its plugin's"


def test_papers_never_import_each_other(graph):
    offences = {m: sorted(t for t in targets if _paper(t) not in (None, _paper(m)))
                for m, targets in graph.items() if _paper(m)}
    assert not {m: t for m, t in offences.items() if t}


def test_no_import_cycle(graph):
    state: dict[str, int] = {}  # 1: on the stack, 2: done

    def visit(module: str, stack: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycle = stack[stack.index(target):] + [target] if target in stack else [module, target]
                pytest.fail("import cycle: " + " → ".join(cycle))
            if target not in state:
                visit(target, [*stack, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_no_notebook_defines_a_function_or_class():
    for script in sorted(paths.NOTEBOOKS_DIR.glob("*.py")):
        tree = ast.parse(script.read_text(encoding="utf-8"))
        kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
        defined = [n.name for n in ast.walk(tree) if isinstance(n, kinds)]
        assert not defined, f"{script.name} defines {defined}: reusable code goes to lib/ with a test"
