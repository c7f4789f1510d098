"""The building blocks of a notebook's parameter schema: the base class, fields with bounds, the registry.

Each paper package declares its notebooks' schemas with these (``lib/<paper>/schemas.py``, named in its
plugin record, :mod:`lib.papers`); :mod:`lib.config` imports a notebook's own paper's schemas and validates
values against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from lib import paths


@dataclass(frozen=True)
class NotebookParams:
    """Parameters every notebook has. Subclasses add their own, each built with :func:`param`."""

    notebook: ClassVar[str] = ""
    profile: str = field(default="default", metadata={"choices": paths.PROFILES})
    recompute: bool = field(
        default=True,
        metadata={"doc": "compute missing or stale results; false: only redraw from logged results"},
    )
    seed: int = field(default=0, metadata={"ge": 0})
    n_jobs: int = field(
        default=1,
        metadata={"ge": -1, "exclude": (0,),
                  "doc": "worker processes (-1: this process's share of cores); never changes results"},
    )


def param(
    default: Any,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    choices: tuple[Any, ...] | None = None,
    names: tuple[str, ...] | None = None,
    doc: str = "",
) -> Any:
    """A schema field with bounds (applied element-wise to sequences) and allowed choices.

    ``names`` are string values allowed beside a number that the bounds check (a layer's "mid").
    """
    bounds = {"ge": ge, "gt": gt, "le": le, "lt": lt, "choices": choices, "names": names, "doc": doc}
    return field(default=default, metadata={k: v for k, v in bounds.items() if v is not None})


#: Named layers, resolved per model by :func:`lib.features.resolve_layer`.
LAYER_NAMES: tuple[str, ...] = ("mid", "last")


def layer_param(default: int | str) -> Any:
    """A ``layer`` field: "mid" (⌊L/2⌋, paper 000's default), "last" (paper 001's) or a block index ≥ 0."""
    return param(default, ge=0, names=LAYER_NAMES,
                 doc='hidden-state layer: "mid" (⌊L/2⌋), "last" (the final layer) or an index 0…L')


#: Fields that name models (a registry name, hub id or local folder, or a list of them): checked against the
#: model's ``config.json`` before any compute (:func:`lib.runner.check_models`).
MODEL_FIELDS: tuple[str, ...] = ("model", "models", "reference", "references", "checkpoint_paths", "generator",
                                 "control_model", "students", "tuned_model")
#: The model fields whose models the ``layer`` field indexes.
LAYERED_MODEL_FIELDS: tuple[str, ...] = ("model", "models", "reference", "references", "checkpoint_paths")


#: Every registered schema by notebook name; filled as the paper packages' ``schemas`` modules import.
REGISTERED: dict[str, type[NotebookParams]] = {}


def register(notebook: str):
    """Class decorator: register ``cls`` as the parameter schema of ``notebook``."""

    def wrap(cls: type[NotebookParams]) -> type[NotebookParams]:
        cls.notebook = notebook
        REGISTERED[notebook] = cls
        return cls

    return wrap
