"""Paper 002 (How Language Models Organize Task Information): the sparse-readout count k*.

Notebooks K01–K08. Entry points: lib.kstar.protocol (Algorithms 1–2, counts, precision, the synthetic count),
lib.kstar.tasks (task pools), lib.kstar.world / models / synthetic (the factor world, A.3.3–A.3.4),
lib.kstar.deployment / cells (A.3.1–A.3.2), lib.kstar.label_budget (A.4), lib.kstar.sae / sae_measure (SAE
encoders, supports), lib.kstar.correspondence and composition (A.2.4–A.2.5). The package's plugin record is
:mod:`lib.kstar.paper`.
"""
