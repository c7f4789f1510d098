"""Paper 002 (How Language Models Organize Task Information): the sparse-readout count k*, notebooks K01–K08.

A map of the package: where to start for each part of the paper.

- ``protocol/`` — the estimator on arrays (A.1.4–A.1.8), no models, no files: ``splits`` (validation portion,
  subsample), ``fitscore`` (Eq. 6–9), ``probe_search`` (Algorithm 1, Eq. 11–13), ``rules`` (threshold Eq. 4,
  qualifying Eq. 5, counts Eq. 14–16, window, readability, precision), ``counts`` (the rules on logged candidate
  tables), ``algorithm`` (Algorithm 2 on arrays: your own features).
- ``estimator`` — Algorithm 2 on models × task pools in one entry, ``kstar_tables`` (sweep → best block and
  window → five-seed window → ceilings and counts), every control of A.3.2 included; ``measure`` holds its model
  side (representations, the sweep and window searches); ``layer_specs`` which blocks are probed (A.1.2, A.1.9).
- ``tasks/`` — the task pools (A.1.3): ``tasks`` (the offline pools), ``hub_tasks``, ``task_files`` (your own
  file), ``cues`` (the surface-cue audit); ``catalog`` names the tasks for the schemas.
- ``order/`` — K03 (A.2.1, A.2.3): task orders across models, the text-side baseline, their power.
- ``world/`` — K04 (A.3.3–A.3.4): the factor world, its networks, the synthetic readout, k^syn.
- ``deployment/`` — K05 (A.3.1–A.3.2): the deployment reduction, the weights × format factorial, its cells.
- ``sae/`` — K06 (A.1.10, A.2.4–A.2.5): SAE encoders, the SAE measurement, correspondence, composition.
- ``interventions`` — K07 (A.2.6): ablating a support in feature space and inside the model.
- ``label_budget/`` — K08 (A.4): budgets and N*, LoRA students, learning curves.
- ``evidence/`` — what the K notebooks' claims read beyond the tables: the paper's printed cells, populations and
  notes, the draws their power is weighed with.
- ``schemas`` (parameters of K01–K08), ``cli`` (``python -m lib kstar``: k* of a model on your own texts),
  ``paper`` (the plugin record), ``claims/`` (each notebook's pre-registered claims).
"""
