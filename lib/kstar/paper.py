"""Paper 002's plugin record (:class:`lib.papers.Paper`): its notebooks K01–K08, the ``kstar`` command."""

from lib.papers import Paper

PAPER = Paper(
    id="002",
    title="How Language Models Organize Task Information",
    authors="",
    prefixes=("K",),
    schemas="lib.kstar.schemas",
    commands={"kstar": "lib.kstar.cli"},
    synthetic=("K04_synthetic_world",),
)
