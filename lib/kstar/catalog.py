"""Names of paper 002's offline tasks (A.1.3), importable by the schemas without building anything.

Two tasks are built but left out of :data:`DEFAULT_TASKS`. ``bbq_ambiguity``: its two classes differ in length
by construction (the disambiguated context adds 1–3 sentences), so a length-only classifier reaches
AUROC 1.0 and A.1.3's cue control fails; a count on it would measure length. ``discrim_question``: every text is
one of a few question templates with the demographic profile changed; held out by template, as A.1.3 holds
templated texts out, no class decision keeps five positives in both splits once cross-split near-duplicates are
removed, so the task has no readable decision and measures nothing (held out by profile instead, it measured
template recognition: TF-IDF read every decision at AUROC 1.0).
"""

from __future__ import annotations

TASKS: tuple[str, ...] = (
    "bbc_topic", "rt_sentiment", "rt_subjectivity", "debate_moderator",
    "dreaddit_stress", "bbq_ambiguity", "discrim_question", "word_valence",
)
DEFAULT_TASKS: tuple[str, ...] = tuple(t for t in TASKS if t not in ("bbq_ambiguity", "discrim_question"))
#: The names of paper 002's tasks built from hub datasets (the paper profile; their definitions are
#: :data:`lib.kstar.tasks.hub_tasks.HUB_TASK_DEFINITIONS`): eight of the 14 core tasks of A.1.3, then four
#: additional ones.
HUB_TASK_NAMES: tuple[str, ...] = (
    "harmfulness", "jailbreak", "routing", "math_answer", "math_step", "language_id", "clinc150", "banking77",
    "massive", "ag_news", "emotion", "twenty_newsgroups",
)
#: Every task a k* notebook can read: the offline pools and the hub ones.
ALL_TASKS: tuple[str, ...] = TASKS + HUB_TASK_NAMES
