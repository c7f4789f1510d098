"""Parameter schemas of paper 001's notebooks (D01, D02), registered by notebook name.

Each field's default is the ``default`` profile's value; ``params/<profile>/<notebook>.yaml``
overrides them per profile. Bounds and choices are enforced before any compute.
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.bias_shift.sentences import ANCHOR_SOURCES, ATTRIBUTE_VARIANTS, GROUPS, TARGET_VARIANTS
from lib.parameters import NotebookParams, layer_param, param, register


@dataclass(frozen=True)
class DeltaBSpectrumParams(NotebookParams):
    """What D01 and D02 share: the checkpoint spectrum, the groups, the layer and the output-level labels."""

    reference: str = param("smollm2-135m", doc="the base model: registry name, hub id or local folder")
    method: str = param("lora", choices=("lora", "full"))
    ratios: tuple[float, ...] = param((0.9, 0.7, 0.5, 0.3, 0.1), gt=0, lt=1, doc="weight of the unharmful model")
    epochs: int = param(3, ge=1)
    checkpoint_paths: tuple[str, ...] = param((), doc="paper profile: checkpoints audited instead of the spectrum")
    groups: tuple[str, ...] = param(GROUPS, choices=GROUPS)
    layer: int | str = layer_param("last")
    n_samples: int = param(5, ge=1)
    temperature: float = param(0.7, gt=0)
    top_p: float = param(1.0, gt=0, le=1)
    max_new_tokens: int = param(32, ge=4)
    generation_batch_size: int = param(120, ge=1, doc="rows per generate call; the sampled draws depend on it")
    external_scores_csv: str = param("", doc="paper profile: CSV checkpoint,group,score from an external benchmark")
    label_threshold: float = param(0.1, doc="ΔBiasScore above which a checkpoint × group counts as increased bias")


@register("D01_deltab")
@dataclass(frozen=True)
class DeltaB(DeltaBSpectrumParams):
    """D01: ΔB across a graded checkpoint spectrum against output-level bias (paper 001, Sec. 4)."""

    pooling: str = param("mean", choices=("mean", "last", "max"))
    anchor_size: int = param(1000, ge=50, le=1000)
    n_bootstrap: int = param(1000, ge=10)


@register("D02_deltab_ablations")
@dataclass(frozen=True)
class DeltaBAblations(DeltaBSpectrumParams):
    """D02: ΔB under anchor, attribute, template and pooling variants and fine-tuning seeds (paper 001, Sec. 4.5)."""

    anchor_sources: tuple[str, ...] = param(ANCHOR_SOURCES, choices=ANCHOR_SOURCES)
    anchor_sizes: tuple[int, ...] = param((50, 100, 250, 500, 1000), ge=50, le=1000)
    attribute_variants: tuple[str, ...] = param(ATTRIBUTE_VARIANTS, choices=ATTRIBUTE_VARIANTS)
    target_variants: tuple[str, ...] = param(TARGET_VARIANTS, choices=TARGET_VARIANTS)
    poolings: tuple[str, ...] = param(("mean", "max", "last"), choices=("mean", "max", "last"))
    seeds: tuple[int, ...] = param((0, 1, 2), ge=0, doc="fine-tuning seeds of the stability check (Appendix E.5)")
