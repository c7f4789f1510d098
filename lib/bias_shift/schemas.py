"""Parameter schemas of paper 001's notebooks (D01, D02), registered by notebook name.

Each field's default is the ``default`` profile's value; ``params/<profile>/<notebook>.yaml``
overrides them per profile. Bounds and choices are enforced before any compute.
"""

from __future__ import annotations

from dataclasses import dataclass

from lib.bias_shift.evaluation import UNITS
from lib.bias_shift.sentences import ANCHOR_SOURCES, ATTRIBUTE_VARIANTS, GROUPS, TARGET_VARIANTS
from lib.bias_shift.stereotype import N_TEMPLATES, SYSTEM_PROMPTS
from lib.parameters import NotebookParams, layer_param, param, register

#: Offline output-level scorers: DecodingTrust agreement by forced choice and by sampling; VADER sentiment and
#: alt-profanity-check's offensive-language probability of sampled continuations.
SCORERS: tuple[str, ...] = ("dt_forced", "dt_sampled", "vader", "profanity")


@dataclass(frozen=True)
class DeltaBSpectrumParams(NotebookParams):
    """What D01 and D02 share: the checkpoint spectrum, the groups, the layer and the output-level labels."""

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
    scorers: tuple[str, ...] = param(SCORERS, choices=SCORERS, doc="offline output-level scorers, each evaluated apart")
    system_prompt: str = param("benign", choices=SYSTEM_PROMPTS, doc="DecodingTrust system prompt")
    n_forced_templates: int = param(16, ge=1, le=N_TEMPLATES, doc="DecodingTrust templates per group, forced choice")
    n_sampled_templates: int = param(4, ge=0, le=N_TEMPLATES, doc="nested templates per group, sampled replies")
    dt_n_samples: int = param(3, ge=1, doc="sampled replies per DecodingTrust prompt (benchmark: 25)")
    dt_temperature: float = param(1.0, gt=0, doc="DecodingTrust sampling temperature (the benchmark's)")
    dt_max_new_tokens: int = param(48, ge=4, doc="tokens per DecodingTrust reply (benchmark: 150)")
    forced_batch_size: int = param(32, ge=1, doc="prompts per forced-choice forward pass")


@register("D01_deltab")
@dataclass(frozen=True)
class DeltaB(DeltaBSpectrumParams):
    """D01: ΔB across graded checkpoint spectra against output-level bias (paper 001, Sec. 4, Table 1).

    Every (reference, method) pair is a setting — a model family under a fine-tuning regime — with its
    own spectrum. ``checkpoint_paths`` (and ``external_scores_csv``, keyed by their names) are one
    family's checkpoints under one regime: with them, more than one reference or method is refused (a
    ValueError that :func:`lib.config.validate` reports as a ConfigError before any compute).
    """

    references: tuple[str, ...] = param(("smollm2-135m",), doc="base models, one family each: registry names, "
                                        "hub ids or local folders")
    methods: tuple[str, ...] = param(("lora",), choices=("lora", "full"), doc="fine-tuning regimes")
    table1_csv: str = param("", doc="paper profile: CSV family,regime,benchmark,checkpoint,group,delta_b,"
                            "delta_bias_score aggregated into Table 1")
    poolings: tuple[str, ...] = param(("mean", "max", "last"), choices=("mean", "max", "last"),
                                      doc="token poolings evaluated; the first is drawn")
    anchor_size: int = param(1000, ge=50, le=1000)
    n_bootstrap: int = param(1000, ge=10)
    n_permutations: int = param(5040, ge=2, doc="checkpoint-block permutations (all of them when fewer)")
    units: tuple[str, ...] = param(("group", "topic"), choices=UNITS, doc="evaluate per group and/or per 9 topics")

    def __post_init__(self) -> None:
        for name in ("references", "methods"):
            values = list(getattr(self, name))
            if not values or len(set(values)) != len(values):
                raise ValueError(f"parameter {name!r} = {values!r} is not allowed; allowed: a non-empty list of "
                                 f"distinct values")
        for name in ("checkpoint_paths", "external_scores_csv"):
            if getattr(self, name) and (len(self.references) > 1 or len(self.methods) > 1):
                raise ValueError(
                    f"parameter {name!r} is set, with references = {list(self.references)!r} and methods = "
                    f"{list(self.methods)!r}; allowed: one reference and one method ({name} belong to the "
                    f"checkpoints of one family under one regime)")


@register("D02_deltab_ablations")
@dataclass(frozen=True)
class DeltaBAblations(DeltaBSpectrumParams):
    """D02: ΔB under anchor, attribute, template and pooling variants and fine-tuning seeds (paper 001, Sec. 4.5)."""

    reference: str = param("smollm2-135m", doc="the base model: registry name, hub id or local folder")
    method: str = param("lora", choices=("lora", "full"))
    anchor_sources: tuple[str, ...] = param(ANCHOR_SOURCES, choices=ANCHOR_SOURCES)
    anchor_sizes: tuple[int, ...] = param((50, 100, 250, 500, 1000), ge=50, le=1000)
    attribute_variants: tuple[str, ...] = param(ATTRIBUTE_VARIANTS, choices=ATTRIBUTE_VARIANTS)
    target_variants: tuple[str, ...] = param(TARGET_VARIANTS, choices=TARGET_VARIANTS)
    poolings: tuple[str, ...] = param(("mean", "max", "last"), choices=("mean", "max", "last"))
    seeds: tuple[int, ...] = param((0, 1, 2), ge=0, doc="fine-tuning seeds of the stability check (Appendix E.5)")
