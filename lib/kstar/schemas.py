"""Parameter schemas of paper 002's notebooks (K01–K08), registered by notebook name.

Each field's default is the ``default`` profile's value (offline: small models that ship on PyPI, two of them, and
Gemma-3-270M beside them in K01–K03 and K05; capped task pools, a short token limit); ``params/paper/`` holds the
paper's settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from lib.kstar import layer_specs
from lib.kstar.catalog import ALL_TASKS, DEFAULT_TASKS
from lib.kstar.sae import suites
from lib.models import loading
from lib.parameters import DistributedParams, ParallelParams, model_param, n_jobs_param, param, register

_OFFLINE_MODELS = ("minilm", "smollm2-135m")
#: K01–K03's panel: the two offline models beside Gemma-3-270M, the one base causal LM that ships offline (a model of
#: the paper's population, A.2.1: "the ten base models of Table 6"), read on raw text as A.1.2 reads a base model.
_PANEL_MODELS = (*_OFFLINE_MODELS, "gemma3-270m")


def _layers(default: str, doc: str) -> Any:
    """A ``layers`` field: a layer spec of :mod:`lib.kstar.layer_specs` (checked on the model names before any
    compute by the schema's ``__post_init__``)."""
    return param(default, doc=doc + ': "grid:N" (N blocks evenly over depth), a list "3,6,9" or "table6" '
                 "(the paper's Table 6 grid, A.1.9)")


@dataclass(frozen=True)
class KstarProtocolParams(DistributedParams):
    """What every k* notebook shares: task pools and the protocol of A.1.4–A.1.6."""

    tasks: tuple[str, ...] = param(DEFAULT_TASKS, choices=ALL_TASKS, doc="task pools (A.1.3)")
    cap: int = param(300, ge=20, doc="texts per split of a pool (A.1.3 caps; the paper's pools hold up to 10,000)")
    max_classes: int = param(5, ge=1, doc="one-vs-rest decisions per multiclass task (a seeded subset beyond)")
    pool_seed: int = param(0, ge=0, doc="seed of the pools, shared by all models (A.1.3)")
    max_tokens: int = param(128, ge=8, doc="input truncation in tokens (paper: 768)")
    layers: str = _layers("grid:6", "probed blocks per model")
    sweep_poolings: tuple[str, ...] = param(("mean", "last"), choices=("mean", "last"),
                                            doc="representations of the preliminary sweep (A.1.6)")
    seeds: tuple[int, ...] = param((1, 2, 3, 4, 5), ge=0, doc="five-seed measurement (A.1.6: seeds 1-5)")
    subsample: float = param(0.85, gt=0, le=1, doc="share of each training class kept per seed (A.1.6)")
    frac: float = param(0.95, gt=0, le=1, doc="threshold factor of Eq. 4: τ is ½ + frac·(C − ½)")
    min_positives: int = param(5, ge=1, doc="positives per split a decision needs (A.1.3: 5 for core tasks)")

    def layered_models(self) -> tuple[str, ...]:
        """The models whose blocks ``layers`` names."""
        return ()

    def __post_init__(self) -> None:
        super().__post_init__()
        layer_specs.check_names(self.layered_models(), self.layers)

    def check_against_models(self) -> None:
        """Every block ``layers`` names exists in each layered model and is a residual stream (its config only);
        a GGUF release not yet converted is checked at its first use."""
        for model in self.layered_models():
            if loading.awaiting_conversion(model):
                continue
            try:
                layer_specs.check(model, self.layers)
            except ValueError as error:
                raise ValueError(f"parameter {error}") from None


@dataclass(frozen=True)
class KstarParams(KstarProtocolParams):
    """A k* notebook that reads every one of its models."""

    models: tuple[str, ...] = model_param(_OFFLINE_MODELS, doc="registry names, hub ids or local checkpoint folders")

    def layered_models(self) -> tuple[str, ...]:
        return tuple(self.models)


def _readability_gate() -> Any:
    """The ``readable_ceiling`` field of the notebooks that gate on a ceiling (A.1.6)."""
    return param(0.90, gt=0.5, lt=1, doc="readability gate: only ceilings above this count; at or below they are "
                 "flagged (A.1.6)")


@dataclass(frozen=True)
class GatedKstarParams(KstarParams):
    """A k* notebook that keeps only the tasks or decisions whose ceiling clears a readability gate."""

    readable_ceiling: float = _readability_gate()


@dataclass(frozen=True)
class ReferenceKstarParams(KstarProtocolParams):
    """A k* notebook measured on one reference model, gated on its ceiling."""

    model: str = model_param("smollm2-135m",
                             doc="the reference model: registry name, hub id or local checkpoint folder")
    readable_ceiling: float = _readability_gate()

    def layered_models(self) -> tuple[str, ...]:
        return (self.model,)


@dataclass(frozen=True)
class PanelKstarParams(KstarParams):
    """A k* notebook of the cross-model panel (K01–K03), whose measurement K05's reference condition shares."""

    models: tuple[str, ...] = model_param(_PANEL_MODELS, doc="registry names, hub ids or local checkpoint folders")


@register("K01_kstar")
@dataclass(frozen=True)
class Kstar(PanelKstarParams):
    """K01: the preliminary sweep and the five-seed window, every task × model (A.1.4–A.1.8)."""

    precision_delta: float = param(0.05, gt=0, lt=1, doc="δ of the McDiarmid radius (A.1.8)")


@register("K02_kstar_controls")
@dataclass(frozen=True)
class KstarControls(PanelKstarParams):
    """K02: estimator and representation controls of the count (A.1.11, A.2.2)."""

    reads: ClassVar[tuple[str, ...]] = ("K01_kstar",)  # K01's searches, from cache/tables: one lane computes them

    thresholds: tuple[float, ...] = param((0.90, 0.975), gt=0, le=1, doc="alternative threshold factors frac of Eq. 4")
    control_model: str = model_param("smollm2-135m", layered=False,
                                     doc="the model rotated and read in its other input format (one of models)")
    rotation_seed: int = param(0, ge=0, doc="seed of the random orthogonal rotation")
    format_tasks: tuple[str, ...] = param(("rt_sentiment", "rt_subjectivity", "debate_moderator", "word_valence"),
                                          choices=ALL_TASKS,
                                          doc="tasks read in the other input format (short texts: CPU budget)")
    shuffle_seed: int = param(0, ge=0, doc="seed of the shuffled-label control")
    min_shared_tasks: int = param(6, ge=3, doc="Spearman agreement needs this many shared tasks")


@register("K03_task_order")
@dataclass(frozen=True)
class TaskOrder(PanelKstarParams):
    """K03: the cross-model task order, its permutation test and the TF-IDF text baseline (A.2.1, A.2.3)."""

    reads: ClassVar[tuple[str, ...]] = ("K01_kstar",)  # K01's searches, from cache/tables: one lane computes them

    n_permutations: int = param(100_000, ge=100, doc="task-label shuffles within each model (A.2.1)")
    permutation_seed: int = param(0, ge=0, doc="seed of the permutation test (the paper's: 0)")
    tfidf_max_features: int = param(30_000, ge=100, doc="TF-IDF vocabulary (A.2.3: 1-2-grams, sublinear tf)")
    text_ks: tuple[int, ...] = param((4, 8, 16, 64, 256), ge=1, doc="prefix sizes read off s(k) (A.2.1)")


@register("K04_synthetic_world")
@dataclass(frozen=True)
class SyntheticWorld(ParallelParams):
    """K04: the synthetic factor world, its trained models and their readout counts (A.3.3–A.3.4).

    The paper's 20 models ran ~30,000 updates (its 150,000-update runs are "five times more"); the
    default trains four small models for a thousand updates, one of them on until its answer loss lies within
    the convergence margin of the attainable loss (controls and the two parity targets the paper's models do not
    learn at log 2; a margin below the cost of any learnable query at chance, ``margin_share``:
    lib.kstar.world.convergence), at most the paper's ~30,000 updates.
    """

    docs: ClassVar[dict[str, str]] = {
        "n_jobs": "worker processes: the models train side by side, one thread each (with one worker, the probe "
                  "fits of each model spread over them instead; -1: this process's share of cores); results do not "
                  "depend on it",
    }

    n_jobs: int = n_jobs_param(-1)

    architectures: tuple[str, ...] = param(("transformer-d64-L2-s0", "transformer-d128-L1-s0", "gru-d64-L1-s0",
                                     "gru-d128-L1-s0"),
                                    doc="'<arch>-d<width>-L<depth>-s<seed>', arch transformer or gru (A.3.4)")
    updates: int = param(1_000, ge=1, doc="training updates per model (paper: ~30,000)")
    # The GRU d64 is not in the default's converge: on the 2-core machine it stopped 0.09 above the attainable
    # loss at the 30,000 cap (33 min, 2026-12-05), so the claims never read it and the one-piece run's budget
    # cannot carry it (docs/TIMINGS.md, docs/CLAIM_CHANGES.md).
    converge: tuple[str, ...] = param(("transformer-d64-L2-s0",),
                                      doc="models trained past updates until their answer loss is within the "
                                      "convergence margin of the attainable loss (of architectures)")
    margin_share: float = param(0.5, gt=0, lt=1, doc="the convergence margin as a share of the least cost of one "
                                "learnable query at chance, H(r)/50 (the four-factor conjunction target: 0.0047 "
                                "nats); below one, no model at chance on a learnable query counts as converged")
    max_updates: int = param(30_000, ge=1, doc="cap on the updates of a model in converge (the paper's ~30,000)")
    check_every: int = param(500, ge=1, doc="updates between two convergence checks of a model in converge")
    read_at_updates: tuple[int, ...] = param((500,), ge=1,
                                             doc="updates at which the tracked queries are read (A.3.4, Table 39)")
    tracked: tuple[str, ...] = param(("threshold8_target", "parity2_target", "threshold8_control"),
                                     doc="queries read at every update of read_at_updates (Table 39)")
    batch_size: int = param(256, ge=1, doc="fresh sequences per update (A.3.3)")
    lr: float = param(2e-3, gt=0, doc="AdamW learning rate (a choice: the paper's settings table was lost)")
    n_train: int = param(1_000, ge=40, doc="fresh probe training prefixes per query")
    n_test: int = param(1_000, ge=40, doc="fresh probe test prefixes per query")
    n_eval: int = param(512, ge=16, doc="held-out sequences for answer accuracy (A.3.4: 512)")
    probe_seed: int = param(0, ge=0, doc="the one probe seed (Table 37) and the probe sequences' seed")
    frac: float = param(0.95, gt=0, le=1, doc="threshold factor of Eq. 4: τ is ½ + frac·(C − ½)")
    readable_ceiling: float = param(0.90, gt=0.5, lt=1, doc="unreadable unless some layer's dense AUROC exceeds this")
    prop7_sigma: float = param(1.0, gt=0, doc="noise s.d. of Proposition 7's example (> √2/Φ⁻¹(0.975) ≈ 0.72)")
    prop7_n: int = param(3_000, ge=100, doc="samples of Proposition 7's example (two thirds train, one third test)")


@register("K05_deployment")
@dataclass(frozen=True)
class Deployment(ReferenceKstarParams):
    """K05: deployment ratios and the weights × format factorial (A.3.1–A.3.2); the protocol of K01."""

    # The reference's plain condition is K01's measurement of that model (one content key in cache/tables, K01 the
    # producer): K05 starts after K01, so two lanes never compute it twice.
    reads: ClassVar[tuple[str, ...]] = ("K01_kstar",)
    docs: ClassVar[dict[str, str]] = {"readable_ceiling": "the gate: both ceilings above this (A.3.1)"}

    model: str = model_param("gemma3-270m", doc="the reference model (weights 0, the base release; its chat condition "
                             "renders with its instruction-tuned counterpart's template): registry name, hub id or "
                             "local checkpoint folder")
    tuned_model: str | None = model_param(None, layered=False,
                                          doc="the tuned checkpoint (weights 1) sharing the reference's chat "
                                          "template: registry name, hub id or local folder; None: the format axis only")
    extra_pairs: tuple[tuple[str, ...], ...] = param((), doc="further [base, tuned] pairs read for A.3.1's ratios "
                                                     "(base on plain text, tuned in chat format)")
    low_count: int = param(8, ge=1, doc="base counts at or below: the group whose ratio the paper finds 1.00 (A.3.1)")
    floor_count: int = param(4, ge=1, doc="reference counts at or below: the floor control, read in octaves (A.3.2)")

    def layered_models(self) -> tuple[str, ...]:
        tuned = (self.tuned_model,) if self.tuned_model else ()
        return (self.model, *tuned, *(model for pair in self.extra_pairs for model in pair))


@register("K06_sae_correspondence")
@dataclass(frozen=True)
class SaeCorrespondence(DistributedParams):
    """K06: SAE supports, feature correspondence across models and composition within one (A.1.10, A.2.4–A.2.5)."""

    models: tuple[str, ...] = model_param(("smollm2-135m", "gemma3-270m"),
                                          doc="registry names, hub ids or local checkpoint folders (offline: the two "
                                          "causal LMs, as the paper pairs causal LMs); the later model of a pair "
                                          "supplies the null's replacements")
    tasks: tuple[str, ...] = param(("bbc_topic", "rt_sentiment", "debate_moderator", "rt_subjectivity"),
                                   choices=ALL_TASKS, doc="task pools (A.1.3)")
    composition_task: str = param("bbc_topic", choices=ALL_TASKS,
                                  doc="the multiclass task of the composition test (A.2.5)")
    cap: int = param(300, ge=20, doc="texts per split of a pool (A.1.3)")
    max_classes: int = param(5, ge=2, doc="one-vs-rest decisions per multiclass task")
    pool_seed: int = param(0, ge=0, doc="seed of the pools, shared by all models (A.1.3)")
    max_tokens: int = param(256, ge=8, doc="input truncation in tokens (paper: 768)")
    layers: str = _layers("grid:4", "probed blocks per model (residual and SAE)")
    sweep_poolings: tuple[str, ...] = param(("mean", "last"), choices=("mean", "last"),
                                            doc="residual representations that enter the sweep ceiling (A.1.10)")
    frac: float = param(0.95, gt=0, le=1, doc="threshold factor of Eq. 4: τ is ½ + frac·(C − ½)")
    min_positives: int = param(5, ge=1, doc="positives per split a decision needs (A.1.3)")
    sae_suites: tuple[tuple[str, ...], ...] = param(
        (), doc="released SAE suites (A.1.10): [model, layout, folder] per model of models, layout one of "
        f"{', '.join(suites.LAYOUTS)}, folder the release as its hub repository lays it out (or its hub id in the "
        "local hub cache); a model without one trains offline TopK SAEs (the sae_* settings below)")
    sae_width: int = param(4, ge=1, doc="offline SAE width: d_sae is sae_width · d")
    sae_k: int = param(50, ge=1, doc="active features k of the TopK SAE (A.1.10: 50)")
    sae_texts: int = param(600, ge=10, doc="training texts whose tokens train each offline SAE")
    sae_steps: int = param(2000, ge=2, doc="Adam steps per offline SAE (the plateau check reads the same training "
                           "at half of them)")
    sae_batch: int = param(512, ge=1, doc="tokens per step")
    sae_lr: float = param(0.001, gt=0, doc="Adam learning rate")
    sae_seed: int = param(0, ge=0, doc="seed of the token sample and the SAE initialisation")
    n_draws: int = param(1000, ge=2, doc="label-matched null draws per test (A.2.4)")
    n_nearest: int = param(50, ge=1, doc="candidates per selected feature, nearest in label correlation (A.2.4)")
    null_seed: int = param(0, ge=0, doc="root seed of the null draws (one stream per pair and decision)")
    composition_seeds: tuple[int, ...] = param((0, 1, 2, 3, 4), ge=0, doc="random dictionaries per decision (A.2.5)")

    def __post_init__(self) -> None:
        super().__post_init__()
        layer_specs.check_names(self.models, self.layers)
        suites.by_model(self.sae_suites, self.models)

    def check_against_models(self) -> None:
        """Every grid block of a model with a released suite has its SAE file in the suite (file names only)."""
        for model, suite in suites.by_model(self.sae_suites, self.models).items():
            try:
                blocks = layer_specs.resolve(model, self.layers)
            except ValueError as error:
                raise ValueError(f"parameter {error}") from None
            suites.files(suite, blocks)


@register("K07_support_interventions")
@dataclass(frozen=True)
class SupportInterventions(GatedKstarParams):
    """K07: ablating a selected support in feature space and inside the model (A.2.6, reconstructed)."""

    docs: ClassVar[dict[str, str]] = {
        "seeds": "probe seeds of the re-measurement (A.1.6)",
        "scheduler": "Dask scheduler address (tcp://host:8786) for the preliminary sweep (the ablations run "
                     "locally); empty: local processes; results do not depend on it",
    }

    tasks: tuple[str, ...] = param(("bbc_topic", "rt_sentiment", "rt_subjectivity", "word_valence"),
                                   choices=ALL_TASKS, doc="task pools whose supports are ablated (A.1.3)")
    random_seeds: tuple[int, ...] = param((0, 1, 2, 3, 4), ge=0, doc="equal-size random coordinate sets per support")
    generator: str = model_param("smollm2-135m", layered=False,
                                 doc="the causal LM ablated while it answers (one of models)")
    generation_task: str = param("bbc_topic", choices=ALL_TASKS,
                                 doc="the task whose support (its first decision holding one) is ablated inside the "
                                 "model")
    instruction: str = param("Is this news article about {decision}? Answer Yes or No.\n\n{text}",
                             doc="the user turn; {text} takes the test text, {decision} the decision's name")
    continuations: tuple[str, ...] = param(("Yes", "No"),
                                           doc="fixed answers scored by the model, the positive class first")
    n_prompts: int = param(40, ge=2, doc="balanced test texts read during generation")
    max_new_tokens: int = param(8, ge=1, doc="greedy reply length")
    batch_size: int = param(16, ge=1, doc="prompts per forward pass")


@register("K08_label_budget")
@dataclass(frozen=True)
class LabelBudget(ReferenceKstarParams):
    """K08: LoRA students' learning curves, the label requirement N* and the shared exponent b (A.4.1–A.4.2).

    ``model`` is the frozen reference model whose k*_t and ceiling C_t (K01's protocol, K01's arguments so
    its cached searches are reused) enter Eq. 57 and whose probe is the teacher. Table 41 (LoRA settings,
    learning rate, token limits) was lost: those defaults are choices. The default is cut to fit a 2-core CPU
    (see params/default/K08_label_budget.yaml for the cut and its measured cost).
    """

    reads: ClassVar[tuple[str, ...]] = ("K01_kstar",)  # its k* table and windows, when logged with these arguments
    docs: ClassVar[dict[str, str]] = {
        "n_jobs": "worker processes for K01's searches (-1: this process's share of cores); results do not "
                  "depend on it",
        "tasks": "K01's pools: k* read with K01's arguments",
        "max_tokens": "the reference model's input truncation in tokens (K01's)",
        "layers": "probed blocks of the reference model (K01's spelling)",
        "sweep_poolings": "representations of K01's preliminary sweep (A.1.6)",
        "seeds": "K01's five-seed measurement of k*",
        "subsample": "share of each training class kept per k* seed",
        "readable_ceiling": "the panel gate of Eq. 57 (reference ceiling above)",
    }

    model: str = model_param("minilm", doc="the frozen reference model of k* and of the teacher probe: registry "
                             "name, hub id or local checkpoint folder")
    students: tuple[str, ...] = model_param(("minilm", "smollm2-135m"), layered=False,
                                            doc="student backbones (A.4.1: eight pretrained models)")
    student_tasks: tuple[str, ...] = param(("rt_subjectivity", "debate_moderator", "bbc_topic", "word_valence"),
                                           choices=ALL_TASKS,
                                           doc="tasks the students learn (a subset of tasks)")
    teacher_tasks: tuple[str, ...] = param(("rt_subjectivity",), choices=ALL_TASKS,
                                           doc="tasks also learned from hard and soft teacher labels (of "
                                           "student_tasks)")
    teacher_students: tuple[str, ...] = param(("minilm",), doc="students of the teacher runs (of students)")
    budgets: tuple[int, ...] = param((16, 64, 256), ge=2, doc="requested label budgets (paper: 16 … 4,096); "
                                     "above a pool's training split they collapse to its size")
    run_seeds: tuple[int, ...] = param((0,), ge=0, doc="seeds of the runs (initial state and the budget draw)")
    max_decisions: int = param(1, ge=1, doc="class decisions per multiclass task (A.4.1: up to three)")
    student_max_tokens: int = param(32, ge=4, doc="student input truncation in tokens (paper: 768, or 512)")
    lora_rank: int = param(8, ge=1, doc="LoRA rank (a choice: Table 41 was lost)")
    lora_alpha: float = param(16.0, gt=0, doc="LoRA scale α (a choice)")
    lora_dropout: float = param(0.05, ge=0, lt=1, doc="LoRA dropout (a choice)")
    lr: float = param(2e-4, gt=0, doc="AdamW constant learning rate (a choice)")
    max_epochs: int = param(50, ge=1, doc="cap on the epoch rule of A.4.1 (50 leaves it unchanged)")
    teacher_folds: int = param(5, ge=2, doc="folds of the teacher's cross-fitted training probabilities")
    n_boot: int = param(2000, ge=1, doc="task-cluster bootstrap replicates of b's interval")
    boot_seed: int = param(0, ge=0, doc="seed of the bootstrap and of the power check")
    power_sims: int = param(
        2000, ge=10, doc="simulated panels of the power check of the claim on b (true b 0.65 and 0)"
    )
