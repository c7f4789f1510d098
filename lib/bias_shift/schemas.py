"""Parameter schemas of paper 001's notebooks (D01, D02), registered by notebook name.

Each field's default is the ``default`` profile's value; ``params/<profile>/<notebook>.yaml``
overrides them per profile. Bounds and choices are enforced before any compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from lib.bias_shift.evaluation import UNITS
from lib.bias_shift.sentences import ANCHOR_SOURCES, ATTRIBUTE_VARIANTS, GROUPS, TARGET_VARIANTS
from lib.bias_shift.stereotype import N_TEMPLATES, SYSTEM_PROMPTS
from lib.parameters import SeededParams, layer_param, model_param, param, register

#: Offline output-level scorers: DecodingTrust agreement by forced choice and by sampling; VADER sentiment and
#: alt-profanity-check's offensive-language probability of sampled continuations.
SCORERS: tuple[str, ...] = ("dt_forced", "dt_sampled", "vader", "profanity")


@dataclass(frozen=True)
class DeltaBSpectrumParams(SeededParams):
    """What D01 and D02 share: the checkpoint spectrum, the groups, the layer and the output-level labels."""

    # The paper's five weights (Appendix C) and the four half-way between them: eleven checkpoints instead of seven,
    # the 1.5x the planner prices for cka_below_rr (D01) and attribute_variants_mean (D02), whose s.e. resample the
    # merge checkpoints. Merges need no training: each costs its labels and its share of D02's grid
    # (docs/CLAIM_CHANGES.md, docs/TIMINGS.md). The paper's five checkpoints stay in the spectrum.
    ratios: tuple[float, ...] = param((0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1), gt=0, lt=1,
                                      doc="merge weights of the unharmful model (Appendix C: 0.9, 0.7, 0.5, 0.3, "
                                          "0.1; the default adds the four between)")
    epochs: int = param(3, ge=1, doc="fine-tuning epochs (Appendix C)")
    checkpoint_paths: tuple[str, ...] = model_param((), doc="paper profile: checkpoint folders or ids to audit "
                                                    "instead of the built spectrum")
    groups: tuple[str, ...] = param(GROUPS, choices=GROUPS, doc="the 24 DecodingTrust groups")
    layer: int | str = layer_param("last", doc='hidden-state layer: "last" (the paper\'s choice), "mid" (⌊L/2⌋) or '
                                               'an index 0…L')
    n_samples: int = param(5, ge=1, doc="VADER and profanity: continuations per prompt (Appendix C)")
    temperature: float = param(0.7, gt=0, doc="VADER and profanity: sampling temperature (Appendix C)")
    top_p: float = param(1.0, gt=0, le=1, doc="nucleus sampling (Appendix C)")
    max_new_tokens: int = param(32, ge=4, doc="VADER and profanity: token budget per continuation")
    generation_batch_size: int = param(120, ge=1,
                                       doc="continuations sampled per generate call (the draws depend on it)")
    external_scores_csv: str = param("", doc="paper profile: CSV checkpoint,group,score from an external benchmark")
    label_threshold: float = param(0.1, doc="ΔBiasScore above which a checkpoint × group counts as increased bias")
    scorers: tuple[str, ...] = param(SCORERS, choices=SCORERS, doc="offline output-level scorers, each evaluated apart")
    system_prompt: str = param("benign", choices=SYSTEM_PROMPTS,
                               doc="DecodingTrust system prompt: benign | untargeted | targeted")
    n_forced_templates: int = param(16, ge=1, le=N_TEMPLATES,
                                    doc="DecodingTrust templates per group for the forced choice (of 48)")
    n_sampled_templates: int = param(4, ge=0, le=N_TEMPLATES,
                                     doc="nested templates per group for sampled replies (0: none)")
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

    docs: ClassVar[dict[str, str]] = {"seed": "training, generation, template-subset and bootstrap seed"}
    #: D02 builds the merge spectrum and, under each of its seeds, the unharmful and the harmful fine-tune, which are
    #: this notebook's shares spectrum at 0 and 100 % harmful data under the same seed: one content-keyed folder each
    #: (lib.bias_shift.checkpoints.finetune_folder). Declared so that ``lib run`` starts D01 once D02 has ended: two
    #: lanes never train one fine-tune at once, and D01 finds D02's fine-tunes (and their embeddings) in the caches.
    reads: ClassVar[tuple[str, ...]] = ("D02_deltab_ablations",)

    references: tuple[str, ...] = model_param(("smollm2-135m",), doc="base models, one family each: registry "
                                              "names, hub ids or local folders")
    methods: tuple[str, ...] = param(("lora",), choices=("lora", "full"),
                                     doc="fine-tuning regimes (each reference × method is a setting): lora | full")
    table1_csv: str = param("", doc="paper profile: CSV family,regime,benchmark,checkpoint,group,delta_b,"
                            "delta_bias_score aggregated into Table 1")
    poolings: tuple[str, ...] = param(("mean", "max", "last"), choices=("mean", "max", "last"),
                                      doc="token poolings evaluated (Appendix E.4); the claims read mean, the "
                                          "paper's, which must be listed")
    anchor_size: int = param(1000, ge=50, le=1000, doc="neutral anchors (Sec. 4.1)")
    n_bootstrap: int = param(1000, ge=10,
                             doc="bootstrap resamples (MAE of the linear fit; checkpoint-bootstrap intervals)")
    n_permutations: int = param(5040, ge=2,
                                doc="checkpoint-block permutations (all of them when fewer, as 7! for the paper's "
                                    "seven checkpoints; else seeded random ones), and group permutations within "
                                    "checkpoints")
    units: tuple[str, ...] = param(("group", "topic"), choices=UNITS,
                                   doc="evaluate per group and/or per the 9 topics of Appendix B")
    # Three shares × four seeds: twelve independent fine-tunes, eight of them D02's seed fine-tunes (its unharmful
    # and harmful fine-tune under seeds 0-3, read from the content-keyed cache), so only the four at 50 % are
    # trained here; 50 % is the share at which the groups' counts of harmful examples vary most
    # (docs/CLAIM_CHANGES.md, docs/TIMINGS.md).
    harmful_shares: tuple[float, ...] = param((0.0, 0.5, 1.0), ge=0, le=1,
                                              doc="harmful share of each independent LoRA fine-tune of the shares "
                                                  "spectrum, a setting beside the merges (not in the paper); 0 and 1 "
                                                  "are D02's fine-tunes under the same seed; [] skips it")
    share_seeds: tuple[int, ...] = param((0, 1, 2, 3), ge=0, doc="training seeds of each harmful share (each "
                                                                "fine-tune one checkpoint)")

    def __post_init__(self) -> None:
        if "mean" not in self.poolings:
            raise ValueError(f"parameter 'poolings' = {list(self.poolings)!r} is not allowed; allowed: a list holding "
                             "'mean', the paper's pooling, at which the claims are tested (Sec. 3.1, Appendix E.4)")
        for name in ("references", "methods"):
            values = list(getattr(self, name))
            if not values or len(set(values)) != len(values):
                raise ValueError(f"parameter {name!r} = {values!r} is not allowed; allowed: a non-empty list of "
                                 f"distinct values")
        if self.harmful_shares and (self.checkpoint_paths or not self.share_seeds):
            raise ValueError(f"parameter 'harmful_shares' = {list(self.harmful_shares)!r} is set, with "
                             f"checkpoint_paths = {list(self.checkpoint_paths)!r} and share_seeds = "
                             f"{list(self.share_seeds)!r}; allowed: no checkpoint_paths (the shares spectrum "
                             "fine-tunes the reference) and at least one seed")
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

    docs: ClassVar[dict[str, str]] = {
        "seed": "seed of the spectrum (as D01), of the anchor subsets and of the generation",
    }

    reference: str = model_param("smollm2-135m", doc="the base model: registry name, hub id or local folder")
    method: str = param("lora", choices=("lora", "full"), doc="fine-tuning regime: lora | full")
    anchor_sources: tuple[str, ...] = param(ANCHOR_SOURCES, choices=ANCHOR_SOURCES,
                                            doc="anchor sets compared (Sec. 4.5, Figure 4)")
    anchor_sizes: tuple[int, ...] = param((50, 100, 250, 500, 1000), ge=50, le=1000,
                                          doc="anchors per set (nested subsets of one seed)")
    attribute_variants: tuple[str, ...] = param(ATTRIBUTE_VARIANTS, choices=ATTRIBUTE_VARIANTS,
                                                doc="attribute wordings compared (App. E.1)")
    target_variants: tuple[str, ...] = param(TARGET_VARIANTS, choices=TARGET_VARIANTS,
                                             doc="target-sentence wordings compared (App. E.2)")
    poolings: tuple[str, ...] = param(("mean", "max", "last"), choices=("mean", "max", "last"),
                                      doc="token pooling (Appendix E.4)")
    # Eight seeds: with two, seeds_stable's s.d. ratio could not hold (its s.e. 0.09 against the 0.1 it must
    # clear); eight bring the s.e. of an s.d. to about a quarter of the ratio's (docs/CLAIM_CHANGES.md). Each seed
    # but 0 (the spectrum's own pair) costs two fine-tunes and their audits (about 9 lane-min); seeds 0-3 are D01's
    # shares spectrum at 0 and 100 % harmful data too (the same content-keyed fine-tunes, trained once, here).
    seeds: tuple[int, ...] = param((0, 1, 2, 3, 4, 5, 6, 7), ge=0,
                                   doc="fine-tuning seeds of the stability check (Appendix E.5); [] skips it")
