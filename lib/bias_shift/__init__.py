"""Paper 001 (reference-based bias auditing): the Representational Bias Shift ΔB and its baselines.
Notebooks: D01_deltab, D02_deltab_ablations. Entry points: deltab (Eq. 1–7, SEAT, CKA), sentences, audit,
ablations, checkpoints (the fine-tuned spectrum), output_bias (sampling, VADER), stereotype (DecodingTrust
agreement: sampled, and the forced choice read against the reference model), chat (chat template or a base model's
plain rendering), evaluation (pooled and checkpoint-level statistics), group_level (ΔB against a label within
checkpoints, and the shared-drift null), table1 (Table 1 per benchmark × family × regime), evidence (the claims'
evidence), readout (what a run shows per pooling and label, in words), cli (``python -m lib deltab``).
"""
