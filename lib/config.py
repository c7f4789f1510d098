"""Typed, validated notebook parameters (docs/ARCHITECTURE.md, "Notebooks" step 4).

Each notebook has a frozen dataclass schema (built with :mod:`lib.parameters` in its paper's
``schemas`` module) registered under the notebook's name; only the schemas of the notebook's own paper
(:mod:`lib.papers`) are imported to validate it. Values
come from ``params/<profile>/<notebook>.yaml`` plus ``--set`` overrides (validated by the runner
*before* execution) and, inside the notebook, from the ``parameters`` cell (:func:`load`): the
cell's ``profile`` selects that profile's YAML and every value edited in the cell (one that differs
from the default profile's) is an override on top. Parameters that differ from their profile's YAML
make a *variant* (:func:`variant`), whose results never land in the canonical folder. Every problem
is reported before any compute, naming the key, the value, what is allowed and, for a typo, the
closest valid key.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import os
import re
import types
import typing
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

from lib import papers, paths
from lib.parameters import REGISTERED, NotebookParams

#: Keys that change how a notebook executes but not what it computes; excluded from the hash.
EXECUTION_KEYS: frozenset[str] = frozenset({"recompute", "n_jobs", "scheduler"})
#: Set to "1" by the runner for the kernels it starts: the parameters cell then holds the values the
#: runner resolved (profile YAML plus ``--set``), taken as they are by :func:`load`.
RESOLVED_VARIABLE = "LIB_PARAMETERS_RESOLVED"


class ConfigError(ValueError):
    """A parameter is unknown, of the wrong type or out of range."""


def schema_for(notebook: str) -> type[NotebookParams]:
    """The registered schema of ``notebook``, from its own paper's schemas; raises naming the known notebooks."""
    paper = papers.paper_of(notebook)
    if paper is not None:
        papers.register_schemas((paper,))
    if notebook not in REGISTERED:
        known = known_notebooks()
        raise ConfigError(f"notebook {notebook!r} has no parameter schema{did_you_mean(notebook, known)} "
                          f"Known: {', '.join(known)}")
    return REGISTERED[notebook]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` naming the closest of ``choices`` (difflib's ratio ≥ 0.6), or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def known_notebooks() -> list[str]:
    """Names of every notebook with a registered schema (every paper's schemas imported)."""
    papers.register_schemas()
    return sorted(REGISTERED)


# --------------------------------------------------------------------------- YAML reading


class _Yaml12Loader(yaml.SafeLoader):
    """SafeLoader that reads YAML 1.2 floats: PyYAML (YAML 1.1) reads ``1e-3`` as a string."""


_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |\.[0-9_]+(?:[eE][-+]?[0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        re.X,
    ),
    list("-+0123456789."),
)


def parse_yaml(text: str) -> Any:
    """Parse YAML with YAML 1.2 float rules."""
    return yaml.load(text, Loader=_Yaml12Loader)  # noqa: S506 (a SafeLoader subclass)


def yaml_problem(error: yaml.YAMLError, *, context: bool = True) -> str:
    """What is wrong in a YAML text, in one line; with ``context``, where the construct it breaks starts."""
    if not isinstance(error, yaml.MarkedYAMLError):
        return " ".join(str(error).split())
    problem = (error.problem or "invalid YAML").replace("'<stream end>'", "the end of the text")
    if context and error.context and error.context_mark is not None:
        construct = error.context.removeprefix("while parsing ").removeprefix("while scanning ")
        mark = error.context_mark
        problem += f" (in {construct} that starts at line {mark.line + 1}, column {mark.column + 1})"
    return problem


def _yaml_position(error: yaml.YAMLError) -> str:
    """``line L, column C`` of a YAML error (1-based), or ``""`` when PyYAML gives none."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""


def read_params_file(profile: str, notebook: str) -> dict[str, Any]:
    """The raw mapping of ``params/<profile>/<notebook>.yaml`` (empty file: no keys).

    An unreadable file or invalid YAML raises :class:`ConfigError` in one line naming the file and the line.
    """
    path = paths.params_file(profile, notebook)
    if not path.is_file():
        raise ConfigError(f"no parameters for notebook {notebook!r} under profile {profile!r}: {path}")
    where = paths.display(path)
    try:
        data = parse_yaml(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        position = _yaml_position(error)
        raise ConfigError(
            f"{where}{', ' + position if position else ''}: invalid YAML: {yaml_problem(error)}; "
            f"allowed: one 'parameter: value' per line, lists as [a, b]"
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{where} cannot be read as UTF-8 text: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must hold a mapping of parameter: value, not {type(data).__name__}")
    return data


def parse_override(assignment: str) -> tuple[str, Any]:
    """Parse one ``KEY=VALUE`` of ``--set``; the value is read as YAML (``n=100`` is an int)."""
    key, sep, raw = assignment.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"--set {assignment!r} is not KEY=VALUE")
    if not raw.strip():
        return key, ""
    try:
        return key, parse_yaml(raw)
    except yaml.YAMLError as error:
        raise ConfigError(
            f"--set {key}={raw!r}: the value is not valid YAML: {yaml_problem(error, context=False)}; allowed: a "
            f"number, true/false, null, a string or a list like [0.1, 0.2] (quote the whole KEY=VALUE in the shell)"
        ) from None


# --------------------------------------------------------------------------- validation


def _describe(meta: Mapping[str, Any], annotation: Any) -> str:
    parts = [_type_name(annotation)]
    for key, symbol in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
        if key in meta:
            parts.append(f"{symbol} {meta[key]}")
    if "choices" in meta:
        parts.append("one of " + ", ".join(repr(c) for c in meta["choices"]))
    if "exclude" in meta:
        parts.append("except " + ", ".join(repr(c) for c in meta["exclude"]))
    if "names" in meta:
        parts.append("or one of " + ", ".join(repr(c) for c in meta["names"]))
    return " ".join(parts)


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin in (tuple, list):
        return f"list of {_type_name(typing.get_args(annotation)[0])}"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(annotation))
    if annotation is type(None):
        return "null"
    return getattr(annotation, "__name__", str(annotation))


class _Invalid(Exception):
    pass


def _coerce(value: Any, annotation: Any) -> Any:
    """Convert ``value`` to ``annotation`` or raise :class:`_Invalid` (no silent truncation)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for option in typing.get_args(annotation):
            try:
                return _coerce(value, option)
            except _Invalid:
                continue
        raise _Invalid
    if annotation is type(None):
        if value is None:
            return None
        raise _Invalid
    if origin in (tuple, list):
        if not isinstance(value, (list, tuple)):
            raise _Invalid
        return tuple(_coerce(v, typing.get_args(annotation)[0]) for v in value)
    if annotation is bool:
        if isinstance(value, bool):
            return value
        raise _Invalid
    if annotation is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _Invalid
    if annotation is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):  # "1e-3" written by YAML 1.1 tools or a quoted override
            try:
                return float(value)
            except ValueError:
                raise _Invalid from None
        raise _Invalid
    if annotation is str:
        if isinstance(value, str):
            return value
        raise _Invalid
    raise TypeError(f"unsupported schema type {annotation!r}")


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _check_bounds(value: Any, meta: Mapping[str, Any]) -> bool:
    for v in _flatten(value):
        if v is None:
            continue
        if isinstance(v, str) and "names" in meta:
            if v not in meta["names"]:
                return False
            continue
        if "choices" in meta and v not in meta["choices"]:
            return False
        if "exclude" in meta and v in meta["exclude"]:
            return False
        if "ge" in meta and not v >= meta["ge"]:
            return False
        if "gt" in meta and not v > meta["gt"]:
            return False
        if "le" in meta and not v <= meta["le"]:
            return False
        if "lt" in meta and not v < meta["lt"]:
            return False
    return True


def validate(notebook: str, values: Mapping[str, Any], *, allow_missing: bool = True) -> NotebookParams:
    """Validate ``values`` against the notebook's schema and return the typed parameters.

    Unknown keys, wrong types and out-of-range values raise :class:`ConfigError` naming the key,
    the value and what is allowed (and the closest valid key for an unknown one); so does a rule
    across fields that the schema's ``__post_init__`` checks with a ValueError.
    """
    schema = schema_for(notebook)
    fields = {f.name: f for f in dataclasses.fields(schema)}
    hints = typing.get_type_hints(schema)
    problems: list[str] = []
    for key in values:
        if key not in fields:
            problems.append(f"unknown parameter {key!r}{did_you_mean(key, fields)} "
                            f"(known: {', '.join(sorted(fields))})")
    if not allow_missing:
        for name in fields:
            if name not in values:
                problems.append(f"parameter {name!r} is missing")
    typed: dict[str, Any] = {}
    for name, value in values.items():
        if name not in fields:
            continue
        meta, annotation = fields[name].metadata, hints[name]
        try:
            converted = _coerce(value, annotation)
        except _Invalid:
            problems.append(
                f"parameter {name!r} = {value!r} has the wrong type; allowed: {_describe(meta, annotation)}"
            )
            continue
        if not _check_bounds(converted, meta):
            problems.append(
                f"parameter {name!r} = {value!r} is out of range; allowed: {_describe(meta, annotation)}"
            )
            continue
        typed[name] = converted
    if problems:
        raise ConfigError(f"{notebook}: " + "; ".join(problems))
    try:
        return schema(**typed)
    except ValueError as error:  # a rule across fields, checked by the schema's __post_init__
        raise ConfigError(f"{notebook}: {error}") from None


def resolve(notebook: str, profile: str, overrides: Mapping[str, Any] | None = None) -> NotebookParams:
    """Parameters of ``notebook`` under ``profile``: the YAML file, then ``overrides``."""
    values = read_params_file(profile, notebook)
    if "profile" in values and values["profile"] != profile:
        raise ConfigError(
            f"{paths.params_file(profile, notebook)} sets profile={values['profile']!r}; "
            f"it must be {profile!r} or absent"
        )
    values = {**values, **dict(overrides or {}), "profile": profile}
    return validate(notebook, values)


def canonical(notebook: str, profile: str) -> NotebookParams:
    """What ``params/<profile>/<notebook>.yaml`` gives (the schema's defaults under ``profile`` without the file)."""
    if paths.params_file(profile, notebook).is_file():
        return resolve(notebook, profile)
    return validate(notebook, {"profile": profile})


def overrides(params: NotebookParams, *, execution: bool = False) -> dict[str, Any]:
    """The parameters that differ from their profile's YAML (execution-only keys too when ``execution``)."""
    base = as_dict(canonical(params.notebook, params.profile))
    skip = {"profile"} | (set() if execution else EXECUTION_KEYS)
    return {k: v for k, v in as_dict(params).items() if k not in skip and v != base[k]}


def _label(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, list):
        return "+".join(_label(v) for v in value) or "none"
    return str(value)


def variant(params: NotebookParams) -> str:
    """The variant name of parameters that differ from their profile's YAML (``""``: the canonical run).

    The overrides in key order, ``layer=3,seed=1``; a value with a character unsafe in a folder name
    (a path's ``/``) or a name over 80 characters is cut and tagged with a hash of the overrides. The
    full parameters are in every result's manifest.
    """
    changed = overrides(params)
    if not changed:
        return ""
    text = ",".join(f"{key}={_label(value)}" for key, value in sorted(changed.items()))
    safe = re.sub(r"[^A-Za-z0-9._+,=\-]", "_", text)
    if safe != text or len(safe) > 80:
        tag = hashlib.sha256(json.dumps(changed, sort_keys=True).encode()).hexdigest()[:8]
        safe = f"{safe[:60]}~{tag}"
    return safe


def describe(params: NotebookParams) -> str:
    """One line: the notebook, its profile and YAML, the overrides, and where its results go."""
    yaml_file = paths.params_file(params.profile, params.notebook)
    source = paths.relative_to_root(yaml_file) if yaml_file.is_file() else "no YAML: the schema's defaults"
    changed = overrides(params, execution=True)
    edits = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(changed.items())) or "none"
    where = paths.relative_to_root(paths.results_dir(params.profile, params.notebook, variant(params)))
    return f"{params.notebook}: profile {params.profile} ({source}); overrides: {edits}; results: {where}/"


def load(notebook: str, namespace: Mapping[str, Any]) -> NotebookParams:
    """Inside a notebook: the parameters from the ``parameters`` cell (after papermill's injection), printed.

    Usage: ``params = config.load("00_theory_checks", globals())``. Run by the runner (which sets
    :data:`RESOLVED_VARIABLE`), the cell holds the resolved values and they are taken as they are.
    Otherwise (JupyterLab, papermill by hand) the cell's ``profile`` selects that profile's YAML and
    each value that differs from the default profile's (the cell as shipped) is an override on top.
    """
    schema = schema_for(notebook)
    values = {f.name: namespace[f.name] for f in dataclasses.fields(schema) if f.name in namespace}
    cell = validate(notebook, values, allow_missing=False)
    if os.environ.get(RESOLVED_VARIABLE) == "1":
        params = cell
    else:
        shipped = as_dict(canonical(notebook, "default"))
        edited = {k: v for k, v in as_dict(cell).items() if k != "profile" and v != shipped[k]}
        params = validate(notebook, {**as_dict(canonical(notebook, cell.profile)), **edited})
    print(describe(params), flush=True)
    return params


def as_dict(params: NotebookParams) -> dict[str, Any]:
    """Plain JSON-ready mapping of the parameters (tuples become lists)."""
    return json.loads(json.dumps(dataclasses.asdict(params)))


def params_hash(params: NotebookParams) -> str:
    """SHA-256 of what the parameters compute (execution-only keys excluded)."""
    content = {k: v for k, v in as_dict(params).items() if k not in EXECUTION_KEYS}
    canonical = json.dumps({"notebook": params.notebook, **content}, sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def seeds_of(params: NotebookParams) -> dict[str, Any]:
    """Every parameter that seeds randomness (its name contains ``seed``)."""
    return {k: v for k, v in as_dict(params).items() if "seed" in k}
