"""The building blocks of a notebook's parameter schema: the base class, fields with bounds, the registry.

Each paper package declares its notebooks' schemas with these (``lib/<paper>/schemas.py``, named in its
plugin record, :mod:`lib.papers`); :mod:`lib.config` imports a notebook's own paper's schemas and validates
values against them. A schema is the one home of each parameter's type, default (the default profile's
value), bounds and doc: the notebook's ``parameters`` cell and ``params/default/`` are written from it by
:mod:`lib.defaults`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from lib import parallel, paths


@dataclass(frozen=True)
class NotebookParams:
    """Parameters every notebook has. Subclasses add their own, each built with :func:`param`.

    ``docs`` gives inherited fields the doc this notebook's cell shows where the field's own doc says too
    little for it (a seed that seeds something particular here); :func:`doc_of` reads it.
    """

    notebook: ClassVar[str] = ""
    docs: ClassVar[Mapping[str, str]] = {}
    #: The notebooks whose logged results this one reads: ``lib run`` runs them first, and one rerun or gone stale
    #: since makes this one stale (:func:`lib.runner.status`).
    reads: ClassVar[tuple[str, ...]] = ()
    profile: str = field(
        default="default",
        metadata={"choices": paths.PROFILES, "doc": "the profile whose params/<profile>/ YAML the notebook runs"},
    )
    recompute: bool = field(
        default=True,
        metadata={"doc": "compute missing or stale results; false: only redraw figures from logged results"},
    )

    def check_against_models(self) -> None:
        """This notebook's own checks of its parameters against its models' ``config.json`` (never their
        weights), run before any compute after the models are found (:func:`lib.runner.check_models`):
        ValueError in one line naming the parameter. None by default."""


def param(
    default: Any,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    choices: tuple[Any, ...] | None = None,
    exclude: tuple[Any, ...] | None = None,
    names: tuple[str, ...] | None = None,
    doc: str = "",
) -> Any:
    """A schema field with bounds (applied element-wise to sequences), allowed choices and excluded values.

    ``names`` are string values allowed beside a number that the bounds check (a layer's "mid").
    ``doc`` is the one-line comment the notebook's parameters cell shows beside the value.
    """
    bounds = {"ge": ge, "gt": gt, "le": le, "lt": lt, "choices": choices, "exclude": exclude, "names": names,
              "doc": doc}
    return field(default=default, metadata={k: v for k, v in bounds.items() if v is not None})


def n_jobs_param(default: int) -> Any:
    """An ``n_jobs`` field: worker processes, -1 for this process's share of the cores; never 0."""
    return param(default, ge=-1, exclude=(0,),
                 doc="worker processes (-1: this process's share of cores); results do not depend on it")


@dataclass(frozen=True)
class SeededParams(NotebookParams):
    """A notebook whose random draws all derive from one root ``seed`` (the others name their seeds)."""

    seed: int = param(0, ge=0, doc="root seed; every cell draws its own child seed")


@dataclass(frozen=True)
class ParallelParams(NotebookParams):
    """A notebook that hands work to ``n_jobs`` worker processes."""

    n_jobs: int = n_jobs_param(1)


@dataclass(frozen=True)
class DistributedParams(ParallelParams):
    """A notebook whose heavy loop can also go to a Dask cluster: ``scheduler`` reaches its ``parallel_map``.

    Only for notebooks that pass ``scheduler`` through; like ``n_jobs`` it never changes a result
    (:data:`lib.config.EXECUTION_KEYS`).
    """

    scheduler: str = param("", doc="Dask scheduler address (tcp://host:8786) for the searches; empty: local "
                           "processes; results do not depend on it")

    def __post_init__(self) -> None:
        parallel.check_scheduler(self.scheduler)


def doc_of(schema: type[NotebookParams], name: str) -> str:
    """The doc of field ``name`` as ``schema``'s notebook shows it: the nearest ``docs`` entry, else the field's.

    The class hierarchy is searched from ``schema`` up to the class that declares the field.
    """
    for cls in schema.__mro__:
        if name in cls.__dict__.get("docs", {}):
            return cls.__dict__["docs"][name]
        if name in cls.__dict__.get("__annotations__", {}):
            break
    return next(f.metadata.get("doc", "") for f in fields(schema) if f.name == name)


#: Named layers, resolved per model by :func:`lib.models.layer_resolver.resolve_layer`.
LAYER_NAMES: tuple[str, ...] = ("mid", "last")


def layer_param(default: int | str, doc: str = "") -> Any:
    """A ``layer`` field: "mid" (⌊L/2⌋, paper 000's default), "last" (paper 001's) or a block index ≥ 0."""
    return param(default, ge=0, names=LAYER_NAMES,
                 doc=doc or 'hidden-state layer: "mid" (⌊L/2⌋), "last" (the final layer) or an index 0…L')


def model_param(default: Any, *, doc: str, layered: bool = True) -> Any:
    """A field naming a model (a registry name, hub id or local folder, or a list of them): checked against the
    model's ``config.json`` before any compute (:func:`lib.runner.check_models`). ``layered``: a ``layer`` field
    of the schema indexes this field's models."""
    return field(default=default, metadata={"doc": doc, "model": "layered" if layered else "plain"})


def model_fields(params: Any) -> dict[str, bool]:
    """The schema's model fields (:func:`model_param`), each with whether its ``layer`` field indexes it."""
    return {f.name: f.metadata["model"] == "layered" for f in fields(params) if "model" in f.metadata}


#: Every registered schema by notebook name; filled as the paper packages' ``schemas`` modules import.
REGISTERED: dict[str, type[NotebookParams]] = {}


def register(notebook: str):
    """Class decorator: register ``cls`` as the parameter schema of ``notebook``."""

    def wrap(cls: type[NotebookParams]) -> type[NotebookParams]:
        cls.notebook = notebook
        REGISTERED[notebook] = cls
        return cls

    return wrap
