"""Names of paper 002's offline tasks (A.1.3), importable by the schemas without building anything.

``bbq_ambiguity`` is built but left out of :data:`DEFAULT_TASKS`: its two classes differ in length
by construction (the disambiguated context adds 1–3 sentences), so a length-only classifier reaches
AUROC 1.0 and A.1.3's cue control fails; a count on it would measure length.
"""

from __future__ import annotations

TASKS: tuple[str, ...] = (
    "bbc_topic", "rt_sentiment", "rt_subjectivity", "debate_moderator",
    "dreaddit_stress", "bbq_ambiguity", "discrim_question", "word_valence",
)
DEFAULT_TASKS: tuple[str, ...] = tuple(t for t in TASKS if t != "bbq_ambiguity")
