"""The house rules of lib/ (docs/ARCHITECTURE.md): the core never imports a paper, papers never import each other,
no import cycle anywhere. Read from the sources with ``ast``, function-level imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lib import paths

PAPERS = ("bias_probes", "bias_shift", "kstar")
#: Core modules allowed to name the papers: the schema registry index and the command line.
PAPER_INDEXES = ("lib.schemas", "lib.__main__")


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


def test_core_never_imports_a_paper(graph):
    offences = {m: sorted(t for t in targets if _paper(t)) for m, targets in graph.items()
                if _paper(m) is None and m not in PAPER_INDEXES}
    assert not {m: t for m, t in offences.items() if t}


def test_papers_never_import_each_other(graph):
    offences = {m: sorted(t for t in targets if _paper(t) not in (None, _paper(m)))
                for m, targets in graph.items() if _paper(m)}
    assert not {m: t for m, t in offences.items() if t}


def test_the_registry_index_only_gathers_schemas(graph):
    assert all(t == "lib.parameters" or t.endswith(".schemas") for t in graph["lib.schemas"])


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
