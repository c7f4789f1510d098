"""The protocol spine of paper 002 (App. A.1.4–A.1.8): splits, FitScore, Algorithm 1, the rules and the counts, on
arrays and logged tables; no models, no files."""
