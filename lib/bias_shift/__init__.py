"""Paper 001 (reference-based bias auditing): the Representational Bias Shift ΔB and its baselines.
Notebooks: D01_deltab, D02_deltab_ablations. Entry points: deltab (Eq. 1–7, SEAT, CKA), sentences, audit,
ablations, checkpoints (the fine-tuned spectrum), output_bias (sampling, VADER), stereotype (DecodingTrust
agreement: sampled and forced choice), chat (chat template or a base model's plain rendering), evaluation
(pooled and checkpoint-level statistics), table1 (Table 1 per benchmark × family × regime),
cli (``python -m lib deltab``).
"""
