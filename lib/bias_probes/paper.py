"""Paper 000's plugin record (:class:`lib.papers.Paper`): its notebooks 00, E01–E11 and A01, the ``power`` command."""

from lib.papers import Paper

PAPER = Paper(
    id="000",
    title="When and Why Do Linear Bias Probes Fail? A Geometric and Statistical Theory of Bias Detectability in "
          "Large Language Model Representations",
    authors="",
    prefixes=("00_", "E", "A"),
    schemas="lib.bias_probes.schemas",
    commands={"power": "lib.bias_probes.cli"},
    synthetic=("00_theory_checks", "E03_ground_truth", "E05_orthogonality", "E06_scaling", "E09_null_calibration",
               "E10_nonlinear"),
)
