"""Thin shared library of the probing companion (see DESIGN.md in the repository root)."""
