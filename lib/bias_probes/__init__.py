"""Paper 000 (When and Why Do Linear Bias Probes Fail?): closed forms, generators with known truth, estimators.
Notebooks: 00_theory_checks, E01–E11 (E01b paraphrases). Entry points: theory (closed forms), simulate, pools,
estimators (ŝ, d̂, κ̂, β_B), groundtruth, model_audit (model features), calibration (E09), neutral_leakage (E11).
"""
