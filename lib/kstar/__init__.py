"""Paper 002 (How Language Models Organize Task Information): the sparse-readout count k*, notebooks K01–K08.

A map of the package: where to start for each part of the paper. Words keep one meaning: a *cell* is a task–model
entry of the k* matrix (the paper's "task–model cell"; also a notebook cell), a *condition* one model read in one input
format (K05, A.3.2's "four conditions"), and the paper's *values* what it reports in its tables and text.

- ``protocol/`` — the estimator on arrays (A.1.4–A.1.8), no models, no files: ``splits`` (validation portion,
  subsample), ``fitscore`` (Eq. 6–9), ``probe_search`` (Algorithm 1, Eq. 11–13), ``rules`` (threshold Eq. 4,
  qualifying Eq. 5, counts Eq. 14–16, window, readability, precision), ``counts`` (the rules on logged candidate
  tables), ``algorithm`` (Algorithm 2 on arrays: your own features).
- ``estimator`` — Algorithm 2 on models × task pools in one entry, ``kstar_tables`` (sweep → best block and
  window → five-seed window → ceilings and counts), every control of A.3.2 included; ``measure`` holds its model
  side (representations in A.1.2's input format, the sweep and window searches); ``layer_specs`` which blocks
  are probed (A.1.2, A.1.9).
- ``tasks/`` — the task pools (A.1.3): ``tasks`` (the offline pools, ``read_offline_source`` their raw rows),
  ``hub_tasks`` (``HUB_TASK_DEFINITIONS``: each hub task's sources and settings; ``read_hub_source`` a hub source's
  rows), ``task_files`` (your own file), ``cues`` (the surface-cue audit); ``catalog`` names the tasks for the
  schemas (``TASKS``, ``HUB_TASK_NAMES``).
- ``order/`` — K03 (A.2.1, A.2.3): task orders across models, the text-side baseline, their power.
- ``world/`` — K04 (A.3.3–A.3.4): the factor world, its networks (``NetworkSpec``: a synthetic network's
  architecture, width, depth and seed), the synthetic readout, k^syn.
- ``deployment/`` — K05 (A.3.1–A.3.2): ``conditions`` (``Condition``: a model in one input format, measured with
  K01's protocol), ``deployment`` (the deployment reduction, the weights × format factorial of four conditions).
- ``sae/`` — K06 (A.1.10, A.2.4–A.2.5): SAE encoders (``sae``), the released suites on disk (``suites``: Gemma
  Scope, Gemma Scope 2, Llama Scope, Qwen-Scope), the SAE measurement (``sae_measure.block_saes``: a suite or
  offline training), correspondence, composition.
- ``interventions`` — K07 (A.2.6): ablating a support in feature space and inside the model.
- ``label_budget/`` — K08 (A.4): budgets and N*, LoRA students, learning curves.
- ``evidence/`` — what the K notebooks' claims read beyond the tables: the paper's reported values
  (``paper_values``), populations and notes, the draws their power is weighed with.
- ``schemas`` (parameters of K01–K08), ``cli`` (``python -m lib kstar``: k* of a model on your own texts),
  ``paper`` (the plugin record), ``claims/`` (each notebook's pre-registered claims).
"""
