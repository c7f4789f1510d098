"""One home for every default: a notebook's schema writes its parameters cell and its default-profile YAML.

The schema (``lib/<paper>/schemas.py``) holds each parameter's type, default (the default profile's value),
bounds and doc. Two copies are generated from it and never edited by hand:

* the notebook's ``parameters`` cell: one ``name = literal  # doc`` line per field, in the schema's order
  (the comment of ``profile`` says how to run the notebook under each profile that has a YAML for it without
  editing the script: ``lib run`` with ``--profile``, or the Lab's working copy);
* ``params/default/<notebook>.yaml``: a header and no values (the default profile *is* the schema's
  defaults); comment lines below the header are notes about the profile and are kept.

``python -m lib.defaults --check`` names every copy that drifted, one line each (notebook, field, both
values), and exits 1; ``python -m lib.defaults --write`` (``make params``) rewrites the copies from the schemas.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import io
import json
import math
import re
import sys
import tokenize
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lib import config, notebook_names, paths
from lib.files import atomic_write_text
from lib.parameters import NotebookParams, doc_of

#: The percent-script line that opens a notebook's parameters cell.
CELL_MARKER = re.compile(r'^# %%.*\btags=\[[^\]]*"parameters"')
#: The header's first line starts so; its second line is :data:`YAML_NOTE`.
YAML_HEADER = "# Default profile: no values here; every default is the schema's"
YAML_NOTE = "# The notebook's parameters cell is written from the schema too (`make params`): edit the schema."
#: The header that default-profile YAMLs carried when they still copied the cell's values.
LEGACY_HEADER = "# Default profile: the notebook's parameters cell holds exactly these values."


# --------------------------------------------------------------------------- what the schema writes


def literal(value: Any) -> str:
    """``value`` as the Python literal a cell shows: lists for tuples, double-quoted strings."""
    if isinstance(value, tuple | list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
        return text if ast.literal_eval(text) == value else repr(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value!r} has no Python literal")
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    raise TypeError(f"no cell literal for {type(value).__name__} {value!r}")


def profiles_of(notebook: str) -> list[str]:
    """The profiles that have a YAML for ``notebook``, in :data:`lib.paths.PROFILES` order (default always)."""
    return [p for p in paths.PROFILES if p == "default" or paths.params_file(p, notebook).is_file()]


def profile_doc(notebook: str) -> str:
    """The comment of the cell's ``profile``: how to choose one of the notebook's profiles without editing it."""
    return (f"choose a profile without editing this file: python -m lib run {notebook_names.short_id(notebook)} "
            f"--profile {'|'.join(profiles_of(notebook))}, or the Lab's copy lab/<profile>/{notebook}.ipynb")


def cell_doc(schema: type[NotebookParams], name: str) -> str:
    """The comment of field ``name`` in the cell: its doc; for ``profile``, :func:`profile_doc`."""
    return profile_doc(schema.notebook) if name == "profile" else doc_of(schema, name)


def cell_line(schema: type[NotebookParams], field: dataclasses.Field) -> str:
    """One line of the cell: ``name = literal  # doc``."""
    return f"{field.name} = {literal(field.default)}  # {cell_doc(schema, field.name)}"


def cell_lines(notebook: str) -> list[str]:
    """The parameters cell of ``notebook`` as its schema writes it."""
    schema = config.schema_for(notebook)
    return [cell_line(schema, f) for f in dataclasses.fields(schema)]


def schema_file(notebook: str) -> str:
    """The repository path of the module that declares ``notebook``'s schema (``lib/<paper>/schemas.py``)."""
    return config.schema_for(notebook).__module__.replace(".", "/") + ".py"


def yaml_header(notebook: str) -> list[str]:
    """The two header lines of ``params/default/<notebook>.yaml``."""
    schema = config.schema_for(notebook)
    return [f"{YAML_HEADER} ({schema_file(notebook)}, {schema.__name__}).", YAML_NOTE]


def _is_header(line: str) -> bool:
    return line.startswith(YAML_HEADER) or line in (YAML_NOTE, LEGACY_HEADER)


def yaml_text(notebook: str, current: str = "") -> str:
    """``params/default/<notebook>.yaml`` as the schema writes it: the header, then the notes of ``current``."""
    notes = [line for line in current.splitlines() if line.startswith("#") and not _is_header(line)]
    return "\n".join([*yaml_header(notebook), *notes]) + "\n"


# --------------------------------------------------------------------------- reading a cell


@dataclasses.dataclass(frozen=True)
class CellLine:
    """One parsed ``name = literal  # doc`` line of a parameters cell."""

    text: str
    name: str
    value: Any
    doc: str


def cell_span(lines: Sequence[str]) -> tuple[int, int] | None:
    """``(start, end)``: the indices of the parameters cell's first and past its last non-blank line."""
    marker = next((i for i, line in enumerate(lines) if CELL_MARKER.match(line)), None)
    if marker is None:
        return None
    stop = next((i for i in range(marker + 1, len(lines)) if lines[i].startswith("# %%")), len(lines))
    filled = [i for i in range(marker + 1, stop) if lines[i].strip()]
    return (filled[0], filled[-1] + 1) if filled else (marker + 1, marker + 1)


def parse_line(text: str) -> CellLine | None:
    """``text`` read as ``name = literal  # doc``; None when it is not one."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    comment = next((t for t in tokens if t.type == tokenize.COMMENT), None)
    code = text[: comment.start[1]] if comment else text
    name, sep, value = code.partition("=")
    if not sep or not name.strip().isidentifier():
        return None
    try:
        parsed = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError):
        return None
    doc = comment.string.removeprefix("#").strip() if comment else ""
    return CellLine(text, name.strip(), parsed, doc)


def read_cell(script: Path) -> list[str] | None:
    """The parameters cell's lines of ``script`` (None: it has no cell tagged parameters)."""
    lines = script.read_text(encoding="utf-8").splitlines()
    span = cell_span(lines)
    return None if span is None else lines[span[0]:span[1]]


# --------------------------------------------------------------------------- the check


def _same(a: Any, b: Any) -> bool:
    """Equal as the cell writes them (``4`` and ``4.0`` differ, a tuple equals its list)."""
    try:
        return literal(a) == literal(b)
    except (TypeError, ValueError):
        return False


def check_cell(notebook: str) -> list[str]:
    """Where the parameters cell of ``notebook`` differs from what its schema writes, one line each."""
    script = paths.notebook_script(notebook)
    where = paths.display(script)
    found = read_cell(script)
    if found is None:
        return [f"{where}: no cell tagged parameters"]
    schema = config.schema_for(notebook)
    fields = {f.name: f for f in dataclasses.fields(schema)}
    parsed = [parse_line(text) for text in found]
    problems = [f"{where}: cell line {text!r} is not 'name = literal  # doc'"
                for text, line in zip(found, parsed, strict=True) if line is None]
    cell = {line.name: line for line in parsed if line is not None}
    for name, field in fields.items():
        line = cell.get(name)
        if line is None:
            problems.append(f"{where}: {name}: missing from the cell, schema {literal(field.default)}")
        elif not _same(line.value, field.default):
            problems.append(f"{where}: {name}: cell {literal(line.value)}, schema {literal(field.default)}")
        elif line.doc != cell_doc(schema, name):
            problems.append(f"{where}: {name}: cell comment {line.doc!r}, schema doc {cell_doc(schema, name)!r}")
        elif line.text != cell_line(schema, field):
            problems.append(f"{where}: {name}: cell line {line.text!r}, schema {cell_line(schema, field)!r}")
    problems += [f"{where}: {name}: cell {literal(line.value)}, not in the schema"
                 for name, line in cell.items() if name not in fields]
    order = [line.name for line in parsed if line is not None and line.name in fields]
    if not problems and order != list(fields):
        problems.append(f"{where}: the cell's order differs from the schema's: {', '.join(fields)}")
    return problems


def check_yaml(notebook: str) -> list[str]:
    """Where ``params/default/<notebook>.yaml`` differs from what the schema writes, one line each."""
    path = paths.params_file("default", notebook)
    where = paths.display(path)
    if not path.is_file():
        return [f"{where}: missing (the runner finds the notebook under the default profile by it)"]
    try:
        values = config.read_params_file("default", notebook)
    except config.ConfigError as error:
        return [str(error)]
    defaults = {f.name: f.default for f in dataclasses.fields(config.schema_for(notebook))}
    problems = []
    for key, value in values.items():
        if key not in defaults:
            problems.append(f"{where}: {key}: YAML {value!r}, not in the schema")
        elif _same(value, defaults[key]):
            problems.append(f"{where}: {key}: YAML {literal(value)}, a copy of the schema's default: remove it")
        else:
            problems.append(f"{where}: {key}: YAML {literal(value)}, schema {literal(defaults[key])}")
    text = path.read_text(encoding="utf-8")
    if not problems and text != yaml_text(notebook, text):
        problems.append(f"{where}: the header is not the generated one")
    return problems


def check_schema(notebook: str) -> list[str]:
    """What the schema of ``notebook`` cannot write well: a missing doc, an ``=`` papermill would trip over."""
    schema = config.schema_for(notebook)
    where = f"{schema_file(notebook)} ({schema.__name__})"
    names = {f.name for f in dataclasses.fields(schema)}
    problems = [f"{where}: docs names {key!r}, not a field" for cls in schema.__mro__
                for key in cls.__dict__.get("docs", {}) if key not in names]
    for field in dataclasses.fields(schema):
        doc = cell_doc(schema, field.name)
        if not doc:
            problems.append(f"{where}: {field.name}: no doc for the cell's comment")
        elif "=" in doc or "=" in literal(field.default):
            problems.append(f"{where}: {field.name}: '=' in the value or doc (papermill cannot read such a line)")
    return problems


def notebooks() -> list[str]:
    """The notebooks with both a script and a schema."""
    scripts = {p.stem for p in paths.NOTEBOOKS_DIR.glob("*.py")}
    return [name for name in config.known_notebooks() if name in scripts]


def check(names: Sequence[str] | None = None) -> list[str]:
    """Every drift and schema problem of ``names`` (None: every notebook), one line each."""
    return [line for name in names or notebooks()
            for line in (*check_schema(name), *check_cell(name), *check_yaml(name))]


# --------------------------------------------------------------------------- writing


def rewrite_cell(text: str, lines: Sequence[str]) -> str:
    """``text`` (a percent script) with its parameters cell's lines replaced by ``lines``."""
    old = text.splitlines()
    span = cell_span(old)
    if span is None:
        raise ValueError("no cell tagged parameters")
    new = [*old[: span[0]], *lines, *old[span[1]:]]
    return "\n".join(new) + ("\n" if text.endswith("\n") else "")


def write_cell(notebook: str) -> Path | None:
    """Rewrite the parameters cell of ``notebook`` from its schema; the script when it changed."""
    script = paths.notebook_script(notebook)
    text = script.read_text(encoding="utf-8")
    new = rewrite_cell(text, cell_lines(notebook))
    if new == text:
        return None
    atomic_write_text(script, new)
    return script


def write_yaml(notebook: str) -> Path | None:
    """Rewrite ``params/default/<notebook>.yaml`` from the schema (its notes kept); the file when it changed."""
    path = paths.params_file("default", notebook)
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    new = yaml_text(notebook, text)
    if new == text:
        return None
    atomic_write_text(path, new)
    return path


def write(names: Sequence[str] | None = None) -> list[Path]:
    """Rewrite the cells and default YAMLs of ``names`` (None: every notebook); the files that changed."""
    changed = [write_cell(name) for name in names or notebooks()] + [write_yaml(name) for name in names or notebooks()]
    return [path for path in changed if path is not None]


# --------------------------------------------------------------------------- command line


def main(argv: Sequence[str] | None = None) -> int:
    """``--check``: report drift (exit 1 when any); ``--write``: rewrite the copies from the schemas."""
    parser = argparse.ArgumentParser(prog="python -m lib.defaults", description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="name every drifted copy, one line each; exit 1 if any")
    mode.add_argument("--write", action="store_true", help="rewrite the parameters cells and default YAMLs")
    parser.add_argument("notebooks", nargs="*", help="notebook names (default: every notebook)")
    args = parser.parse_args(argv)
    names = args.notebooks or None
    if args.write:
        for path in write(names):
            print(f"wrote {paths.display(path)}")
    problems = check(names)
    for line in problems:
        print(line)
    if problems:
        fix = "" if args.write else "; `make params` rewrites the cells and YAMLs from the schemas"
        print(f"{len(problems)} problem(s){fix}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
