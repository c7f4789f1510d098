"""Which ``lib`` sources a piece of code runs: its imports within ``lib``, followed transitively.

A logged result is keyed by the sources its notebook runs (docs/ARCHITECTURE.md, "Data flow"), the way a build
system keys a rule by its code: a change in a module recomputes the notebooks that import it,
directly or through other modules, and nothing else. Imports are read with ``ast`` at any depth of
a file (function-level ones included). Importing ``lib.a.b`` runs the package ``lib/a/__init__.py``
too; its own source counts, but what it imports counts only when the code takes a name from the
package itself (``from lib.kstar import ext_median``), not when it reaches a submodule through it.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
from collections.abc import Callable, Iterable
from pathlib import Path

from lib import paths


def module_file(module: str) -> Path | None:
    """The source of a ``lib`` module or package (``lib.kstar`` → ``lib/kstar/__init__.py``), if it exists."""
    parts = module.split(".")
    if parts[0] != "lib":
        return None
    base = paths.LIB_DIR.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _package_of(path: Path) -> str:
    relative = path.relative_to(paths.LIB_DIR).with_suffix("").parts
    package = relative if relative[-1] == "__init__" else relative[:-1]
    return ".".join(("lib", *package)).removesuffix(".__init__")


def imported_modules(path: Path) -> set[str]:
    """Every ``lib`` module that the file at ``path`` imports, at any depth (relative imports resolved)."""
    stat = Path(path).stat()
    return set(_imported_modules(str(Path(path).resolve()), str(paths.LIB_DIR), stat.st_mtime_ns, stat.st_size))


@functools.cache
def _imported_modules(path: str, lib_dir: str, mtime_ns: int, size: int) -> frozenset[str]:
    """:func:`imported_modules`, parsed once per version of the file (its mtime and size)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = _package_of(Path(path).resolve()).split(".")
                base = ".".join([*package[:len(package) - node.level + 1], *([base] if base else [])])
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if module_file(candidate) else base)
    return frozenset(name for name in found if module_file(name) is not None)


def closure(modules: Iterable[str]) -> list[Path]:
    """The source files of ``modules`` and of every ``lib`` module they import, transitively, sorted.

    Paper packages are discovered at run time (:mod:`lib.papers`), never imported by name from the core, so
    a notebook's closure holds its own paper's modules and no other paper's.
    """
    files: set[Path] = set()
    pending = list(modules)
    followed: set[str] = set()
    while pending:
        module = pending.pop()
        if module in followed:
            continue
        followed.add(module)
        source = module_file(module)
        if source is None:
            continue
        files.add(source)
        pending.extend(imported_modules(source))
        parts = module.split(".")
        for depth in range(1, len(parts)):  # the packages run on the way: their source, not their imports
            package = module_file(".".join(parts[:depth]))
            if package is not None:
                files.add(package)
    return sorted(files)


def name(source: Path) -> str:
    """A source file's name for keys and manifests: relative to ``lib/``'s parent (``lib/config.py``)."""
    root = paths.LIB_DIR.parent
    return (source.relative_to(root) if source.is_relative_to(root) else source).as_posix()


def digest(files: Iterable[Path]) -> str:
    """SHA-256 over each file's :func:`name` and bytes."""
    hasher = hashlib.sha256()
    for source in sorted(files):
        hasher.update(name(source).encode() + b"\0")
        hasher.update(source.read_bytes() + b"\0")
    return hasher.hexdigest()


def all_sources() -> list[Path]:
    """Every ``lib/**/*.py``: the conservative key when the code that runs cannot be read."""
    return sorted(paths.LIB_DIR.rglob("*.py"))


def of_file(path: Path) -> list[Path]:
    """The ``lib`` sources a script (a notebook's percent script) runs, with its claims catalogue
    (``lib/<paper>/claims/<script>.yaml``, the pre-registration its closing cell is judged by); every source when
    it cannot be read."""
    catalogue = sorted(paths.LIB_DIR.glob(f"*/claims/{Path(path).stem}.yaml"))
    try:
        modules = imported_modules(path)
        return closure(modules) + catalogue
    except (OSError, SyntaxError, ValueError):
        return all_sources() + catalogue


def of_function(func: Callable) -> list[Path]:
    """The sources ``func`` runs: its ``lib`` module's closure, or its own file and that file's ``lib`` imports."""
    module = getattr(func, "__module__", "") or ""
    if module_file(module) is not None:
        return closure([module])
    try:
        own = Path(inspect.getsourcefile(func) or "")
    except TypeError:
        return all_sources()
    return sorted({own, *of_file(own)}) if own.is_file() else all_sources()
