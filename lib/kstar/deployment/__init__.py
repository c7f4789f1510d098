"""Deployment and the weights × format factorial of paper 002 (App. A.3.1–A.3.2): K05's wing."""
