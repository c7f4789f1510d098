"""The model populations of paper 002's cross-model claims (App. A.2.1): the paper's, and every model of a run.

A.2.1 states its claims on base causal LMs: "The comparison uses the 14 core tasks of Table 3 on the ten base models
of Table 6", and "Among the nine tasks readable in every model, σ_t is at most 3.2" or "Equation 25 over the 30
cross-lab pairs" count those ten. Every one of them is a decoder-only causal LM read on raw text (A.1.2: "Base models
receive the raw text with the tokenizer's default special tokens and no chat template"). A run may hold other models
(a sentence encoder, an instruction-tuned release in its chat template): the paper's claims are tested on its base
causal LMs alone (:func:`paper_population`), and every model of the run forms a second panel, reported as an
extension (:func:`all_models`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lib.kstar.order import order
from lib.models import architecture, registry


@dataclass(frozen=True)
class Panel:
    """A set of models the cross-model claims are tested on: its members, who it is in words (``stated``), the
    models of the run left out with why (``left_out``), and why the members cannot carry a cross-model statistic
    (``missing``: "" when they can)."""

    models: tuple[str, ...]
    stated: str
    left_out: str
    missing: str

    @property
    def note(self) -> str:
        """The panel in one clause for a claim's note: its members and who was left out."""
        members = ", ".join(self.models) or "none"
        return f"{self.stated}: {members}" + (f"; left out: {self.left_out}" if self.left_out else "")


def causal_lm(model: str) -> bool:
    """Whether ``model`` is a decoder-only causal LM, from its ``config.json``: its family is one of the pre-norm
    decoders of :data:`lib.models.architecture.FINAL_NORM` (every family there is a causal LM; the encoders, BERT and
    its kin, are the families without a final norm). A family the architecture table does not know raises there."""
    return architecture.final_norm(model) is not None


def why_not_base_causal(model: str) -> str:
    """Why ``model`` is outside A.2.1's population ("" when it is a base causal LM). An instruction-tuned release is
    named from the registry (or its hub id) before any config is read."""
    if registry.instruction_tuned(model):
        return "an instruction-tuned release (read in its chat template, A.1.2), not a base model"
    if not causal_lm(model):
        return "an encoder, not a causal LM"
    return ""


def _missing(models: Sequence[str], stated: str) -> str:
    """Why ``models`` cannot carry a cross-model statistic of A.2.1: fewer than two, or no two from different labs
    (the paper's statistics run over cross-lab pairs, Eq. 25); "" when they can."""
    if len(models) < 2:
        return (f"{stated} in `models`: {len(models)} ({', '.join(models) or 'none'}); a cross-model statistic needs "
                "two, from two labs (A.2.1: the paper's ten base models form 30 cross-lab pairs)")
    if not order.cross_lab_pairs(models):
        return f"the {stated} in `models` ({', '.join(models)}) all come from one lab: A.2.1's pairs cross labs"
    return ""


def paper_population(models: Sequence[str]) -> Panel:
    """The models of ``models`` in A.2.1's population, the base causal LMs (each read on raw text, A.1.2), in the
    run's order; the others named with why they are left out."""
    reasons = {model: why_not_base_causal(model) for model in models}
    members = tuple(model for model in models if not reasons[model])
    stated = "base causal LMs"
    left_out = "; ".join(f"{model} ({why})" for model, why in reasons.items() if why)
    return Panel(members, stated, left_out, _missing(members, stated))


def all_models(models: Sequence[str]) -> Panel:
    """Every model of ``models``, each in A.1.2's input format: the extension's panel."""
    stated = "models of the run, each in A.1.2's input format"
    return Panel(tuple(models), stated, "", _missing(tuple(models), "models"))
