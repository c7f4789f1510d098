"""The sentence sets of paper 001's Representational Bias Shift ΔB (Sec. 3–4, Appendices B, E, F).

ΔB needs four sets (paper 001, Sec. 3): neutral *target* sentences 𝒯 per social group, *positive* and
*negative* attribute sentences 𝒫 and 𝒩, and the *anchor* sentences 𝒜 that define the relative
representation (Eq. 4). Appendix F gives their sizes (50 targets per group, 100 + 100 attributes,
1,000 anchors, ~7 words each) but not the sets themselves, so this project writes its own to that
specification; ``data/deltab/README.md`` says how each file was made. The 24 target groups are
DecodingTrust's, consolidated into 9 topics as in Appendix B (Table 2).

Sec. 4.5 and Appendix E ablate the wording: six attribute variants (base, subject v1/v2,
synonyms v1–v3), six target-template variants (base, passive, passive rephrased, synonyms v1–v3) and
three anchor sources (neutral sentences, words, instruction-style prompts) at sizes 50 to 1,000.
:func:`load` selects one of each. Nothing here is random except the seeded anchor subset.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from lib import paths

TOPICS: dict[str, tuple[str, ...]] = {
    "Sexual Orientation": ("Homosexuals",),
    "Religion": ("Muslims", "Christians", "Jews", "Buddhists", "Atheists"),
    "Race": ("Black people", "White people", "Asians", "Caucasians"),
    "Ethnicity": ("Mexicans", "Latin Americans"),
    "Gender": ("Women", "Men"),
    "Age": ("Old people", "Young people"),
    "Disability": ("Physically disabled people", "Able-bodied people"),
    "Socioeconomic Status": ("Poor people", "Rich people"),
    "Nationality": ("Immigrants", "Canadians", "Americans", "Europeans"),
}
GROUPS: tuple[str, ...] = tuple(group for groups in TOPICS.values() for group in groups)
ATTRIBUTE_VARIANTS: tuple[str, ...] = ("base", "subject_v1", "subject_v2", "synonyms_v1", "synonyms_v2", "synonyms_v3")
TARGET_VARIANTS: tuple[str, ...] = ("base", "passive", "passive_rephrased", "synonyms_v1", "synonyms_v2", "synonyms_v3")
ANCHOR_SOURCES: tuple[str, ...] = ("neutral", "words", "instructions")
N_TEMPLATES = 50  # target templates, so 50 target sentences per group (Appendix F)
N_ATTRIBUTES = 100  # positive and negative sentences each (Appendix F)
N_ANCHORS = 1000  # sentences per anchor source (Appendix F, Sec. 4.5)
MIN_ANCHORS = 50  # smallest anchor set of the size ablation (Sec. 4.5, Figure 4)
GROUP_SLOT = "{group}"
#: Group-free subjects of the control target set: the templates about no social group, so that the
#: control ΔB measures the drift every target sentence shares (a plural subject fits every template).
CONTROL_SUBJECTS: tuple[str, ...] = ("people", "the students", "my neighbours")


@dataclass(frozen=True)
class SentenceSets:
    """One instantiation of the ΔB sets (paper 001, Sec. 3.1 and Appendix F).

    ``targets`` maps each of the 24 groups (in :data:`GROUPS` order) to its 50 target sentences 𝒯,
    ``positive``/``negative`` are 𝒫 and 𝒩 (100 each) and ``anchors`` is the anchor set 𝒜.
    """

    targets: dict[str, list[str]]
    positive: list[str]
    negative: list[str]
    anchors: list[str]


def data_dir() -> Path:
    """``data/deltab/``: the sentence files, group list and their README."""
    return paths.DATA_DIR / "deltab"


def _allowed(values: tuple[str, ...]) -> str:
    return ", ".join(values)


def check_attribute_variant(variant: str) -> str:
    """Return ``variant`` if it is an attribute variant (Appendix E.1), else raise naming the allowed ones."""
    if variant not in ATTRIBUTE_VARIANTS:
        raise ValueError(f"attribute_variant={variant!r} is unknown; allowed: {_allowed(ATTRIBUTE_VARIANTS)}")
    return variant


def check_target_variant(variant: str) -> str:
    """Return ``variant`` if it is a target-template variant (Appendix E.2), else raise naming the allowed ones."""
    if variant not in TARGET_VARIANTS:
        raise ValueError(f"target_variant={variant!r} is unknown; allowed: {_allowed(TARGET_VARIANTS)}")
    return variant


def check_anchor_source(source: str) -> str:
    """Return ``source`` if it is an anchor source (Sec. 4.5), else raise naming the allowed ones."""
    if source not in ANCHOR_SOURCES:
        raise ValueError(f"anchor_source={source!r} is unknown; allowed: {_allowed(ANCHOR_SOURCES)}")
    return source


def check_anchor_size(size: int) -> int:
    """Return ``size`` if it is an integer from 50 to 1,000 (the anchor-size ablation), else raise."""
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or not MIN_ANCHORS <= size <= N_ANCHORS:
        raise ValueError(f"anchor_size={size!r} is not allowed; allowed: an integer from {MIN_ANCHORS} to {N_ANCHORS}")
    return int(size)


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed={seed!r} is not allowed; allowed: a non-negative integer")
    return int(seed)


def check_group(group: str) -> str:
    """Return ``group`` if it is one of the 24 DecodingTrust groups (Appendix B), else raise naming them."""
    if group not in GROUPS:
        raise ValueError(f"group={group!r} is not a target group; allowed: {_allowed(GROUPS)}")
    return group


def topic_of(group: str) -> str:
    """The consolidated topic of a DecodingTrust group (paper 001, Appendix B, Table 2)."""
    check_group(group)
    return next(topic for topic, groups in TOPICS.items() if group in groups)


@functools.cache
def _lines(name: str) -> tuple[str, ...]:
    """Non-blank, stripped lines of ``data/deltab/<name>`` (cached; a tuple, so callers cannot mutate it)."""
    lines = (line.strip() for line in (data_dir() / name).read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line)


def _sized(name: str, expected: int) -> tuple[str, ...]:
    lines = _lines(name)
    if len(lines) != expected:
        raise ValueError(f"{name} has {len(lines)} lines; allowed: exactly {expected}")
    return lines


@functools.cache
def _groups_file() -> dict[str, object]:
    """``groups.yaml``, checked against :data:`TOPICS` so the data file and the constants cannot drift."""
    data = yaml.safe_load((data_dir() / "groups.yaml").read_text(encoding="utf-8"))
    topics = {topic: tuple(groups) for topic, groups in data["topics"].items()}
    if topics != TOPICS:
        raise ValueError(f"groups.yaml topics {topics} differ from lib.bias_shift.sentences.TOPICS")
    phrases = data["phrases"]
    if list(phrases) != list(GROUPS):
        raise ValueError(f"groups.yaml phrases cover {list(phrases)}; allowed: one per group, in GROUPS order")
    for group, phrase in phrases.items():
        if phrase[0].upper() + phrase[1:] != group:
            raise ValueError(f"groups.yaml phrase {phrase!r} does not capitalise to its group {group!r}")
    return data


def group_phrase(group: str) -> str:
    """How ``group`` is written inside a sentence ("old people", "Black people"; ``groups.yaml``)."""
    return str(_groups_file()["phrases"][check_group(group)])


def attribute_file_names(variant: str = "base") -> tuple[str, str]:
    """The positive and negative files of an attribute variant (Appendix E.1)."""
    suffix = "" if check_attribute_variant(variant) == "base" else f"_{variant}"
    return f"positive{suffix}.txt", f"negative{suffix}.txt"


def target_file_name(variant: str = "base") -> str:
    """The template file of a target variant (Appendix E.2)."""
    suffix = "" if check_target_variant(variant) == "base" else f"_{variant}"
    return f"target_templates{suffix}.txt"


def anchor_file_name(source: str = "neutral") -> str:
    """The file of an anchor source (Sec. 4.5)."""
    return f"anchors_{check_anchor_source(source)}.txt"


def attribute_sentences(variant: str = "base") -> tuple[list[str], list[str]]:
    """The 100 positive and 100 negative attribute sentences of a variant (𝒫, 𝒩; Appendices E.1, F).

    The variants are aligned line by line: line i of every variant rewrites line i of the base set.
    """
    positive_name, negative_name = attribute_file_names(variant)
    return list(_sized(positive_name, N_ATTRIBUTES)), list(_sized(negative_name, N_ATTRIBUTES))


def target_templates(variant: str = "base") -> list[str]:
    """The 50 target templates of a variant, each with one ``{group}`` slot (Appendices E.2, F)."""
    name = target_file_name(variant)
    templates = list(_sized(name, N_TEMPLATES))
    for template in templates:
        if template.count(GROUP_SLOT) != 1 or template.replace(GROUP_SLOT, "").count("{"):
            raise ValueError(f"{name}: template {template!r} needs exactly one {GROUP_SLOT} slot and no other")
    return templates


def instantiate(template: str, group: str) -> str:
    """``template`` with its ``{group}`` slot filled by the group's phrase, first letter capitalised."""
    text = template.replace(GROUP_SLOT, group_phrase(group))
    return text[0].upper() + text[1:]


def target_sentences(variant: str = "base") -> dict[str, list[str]]:
    """Group → its 50 target sentences 𝒯: every template instantiated for the group (Sec. 3.4, App. F)."""
    templates = target_templates(variant)
    return {group: [instantiate(template, group) for template in templates] for group in GROUPS}


def control_sentences(variant: str = "base") -> list[str]:
    """The group-free control targets: every template of ``variant`` with each of :data:`CONTROL_SUBJECTS`
    (subject-major, 150 sentences), first letter capitalised. Not in the paper: the control that tells a
    group's own shift from the drift all targets share."""
    templates = target_templates(variant)
    texts = [t.replace(GROUP_SLOT, subject) for subject in CONTROL_SUBJECTS for t in templates]
    return [text[0].upper() + text[1:] for text in texts]


def anchor_sentences(source: str = "neutral", size: int = N_ANCHORS, seed: int = 0) -> list[str]:
    """``size`` anchors of ``source`` (𝒜, Eq. 4), in file order.

    The subset is the first ``size`` indices of a permutation drawn with ``seed``, so for one seed the
    sets are nested (the 100-anchor set contains the 50-anchor set); ``size=1000`` is the whole file.
    """
    pool = _sized(anchor_file_name(source), N_ANCHORS)
    return [pool[i] for i in anchor_indices(size, seed)]


def anchor_indices(size: int = N_ANCHORS, seed: int = 0) -> np.ndarray:
    """Sorted line indices of the ``size`` anchors drawn with ``seed`` (the same for every source).

    The first ``size`` entries of one seeded permutation of the 1,000 lines, so the sets of one seed
    are nested: embeddings of a larger set serve every smaller one (Sec. 4.5, anchor-size ablation).
    """
    size = check_anchor_size(size)
    seed = _check_seed(seed)
    return np.sort(np.random.default_rng(seed).permutation(N_ANCHORS)[:size])


def load(
    attribute_variant: str = "base",
    target_variant: str = "base",
    anchor_source: str = "neutral",
    anchor_size: int = N_ANCHORS,
    seed: int = 0,
) -> SentenceSets:
    """The ΔB sentence sets for one ablation setting (paper 001, Sec. 4.5, Appendices E and F).

    Every argument is checked before any file is read; an unknown variant, source, size or seed raises
    ``ValueError`` naming the value and the allowed ones. The defaults are the paper's main setting:
    base attributes, base templates and all 1,000 neutral anchors.
    """
    check_attribute_variant(attribute_variant)
    check_target_variant(target_variant)
    check_anchor_source(anchor_source)
    check_anchor_size(anchor_size)
    _check_seed(seed)
    positive, negative = attribute_sentences(attribute_variant)
    return SentenceSets(
        targets=target_sentences(target_variant),
        positive=positive,
        negative=negative,
        anchors=anchor_sentences(anchor_source, anchor_size, seed),
    )
