"""Deployment and the weights × format factorial of paper 002 (App. A.3.1–A.3.2): K05's wing.

``conditions``: a condition is one model read in one input format (plain or chat) on a list of task pools, each
measured with K01's protocol; ``deployment``: the deployment ratios, the factorial of the four conditions (w, f)
and its controls (shared layers, ceilings, precision).
"""
