"""Paper 001's plugin record (:class:`lib.papers.Paper`): its notebooks D01–D02, the ``deltab`` command."""

from lib.papers import Paper

PAPER = Paper(
    id="001",
    title="Reference-based bias auditing with relative representations: the Representational Bias Shift ΔB",
    authors="Marek Jeliński, Jan Dubiński, Maciej Chrabąszcz, Sebastian Cygert",
    prefixes=("D",),
    schemas="lib.bias_shift.schemas",
    commands={"deltab": "lib.bias_shift.cli"},
)
