"""Sparse autoencoders of paper 002 (App. A.1.10, A.2.4–A.2.5): encoders, the SAE measurement, correspondence and
composition: K06's wing."""
