"""Paper 002 (How Language Models Organize Task Information): the sparse-readout count k*.

Notebooks K01–K08. Entry points: lib.kstar.probe_search (Algorithm 1, A.1.5) on lib.kstar.fitscore and splits
(A.1.4), lib.kstar.rules (threshold, counts, window, precision: A.1.1, A.1.6, A.1.8) and counts (the same rules
over logged tables), lib.kstar.measure (Algorithm 2 on models × task pools), lib.kstar.algorithm (Algorithm 2 on
arrays), lib.kstar.tasks (task pools) and task_files (pools from your own file), lib.kstar.layer_specs and cli
(the ``kstar`` command), lib.kstar.world / networks / synthetic / ksyn (the factor world, its networks and k^syn,
A.3.3–A.3.4), lib.kstar.deployment / cells (A.3.1–A.3.2), lib.kstar.label_budget (A.4), lib.kstar.sae /
sae_measure (SAE encoders, supports), lib.kstar.correspondence and composition (A.2.4–A.2.5).
The package's plugin record is :mod:`lib.kstar.paper`.
"""
