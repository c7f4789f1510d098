"""When a model of the synthetic world counts as trained (paper 002, A.3.3–A.3.4): the convergence margin, each
model's verdict with the reason it missed, the count per architecture family and the population the target claims
read.

The paper states no stopping rule. What it says trained meant for its models is per query: every target of the
seven learned families is answered (two-factor parity and the eight-factor threshold "end at 1.000", A.3.4,
"Width-limited and longer runs"), while the four- and eight-factor parity targets stay at chance. The rule here
follows from Proposition 5's proof (A.3.3): a position whose answer the model does not compute costs at least the
entropy H(r) of its label (r from Lemma 4), and each of the 50 queries holds 1/50 of the answer positions, so a
learnable query left at chance adds at least H(r)/50 to the answer loss. A model is converged when its held-out
answer loss lies within a margin of the loss attainable on that set (:meth:`FactorWorld.attainable_loss_on`) that
is a share below one of the least such cost (:func:`margin`): a model at chance on any learnable query, a
two-factor parity target answered ½/½ among them, is outside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lib.kstar.world import world as fw

#: Binomial s.e. above its chance accuracy within which a learnable query's held-out accuracy reads "at chance".
CHANCE_SE = 2.0
#: How the claims' notes name each architecture family (plural: with an "s").
FAMILY_NAMES = {"transformer": "transformer", "gru": "GRU"}


def held_out_set(world: fw.FactorWorld, n_eval: int, probe_seed: int) -> fw.Batch:
    """The ``n_eval`` held-out sequences answer accuracy and loss are reported on (A.3.4: 512), drawn from
    ``default_rng([probe_seed, 4])``."""
    return world.sample(np.random.default_rng([probe_seed, 4]), n_eval)


def stopping_set(world: fw.FactorWorld, n_eval: int, probe_seed: int) -> fw.Batch:
    """The ``n_eval`` sequences a model trained to the margin stops on (``default_rng([probe_seed, 5])``), apart from
    :func:`held_out_set` so that the reported loss is not the one stopped on."""
    return world.sample(np.random.default_rng([probe_seed, 5]), n_eval)


def least_chance_cost(world: fw.FactorWorld) -> fw.Query:
    """The learnable query whose answer at chance costs the least (Query.chance_cost; the four-factor conjunction
    target, H(1/16) = 0.234 nats per position)."""
    return min((q for q in world.queries if q.learnable), key=lambda q: q.chance_cost)


def margin(world: fw.FactorWorld, share: float) -> float:
    """The convergence margin: ``share`` × the least cost a learnable query at chance adds to the answer loss,
    H(r)/50 (module docstring); ``share`` must lie in (0, 1), so that no model at chance on a learnable query is
    within it."""
    if not 0 < share < 1:
        raise ValueError(f"share={share!r} is out of range; allowed: 0 < share < 1 (a margin below the cost of one "
                         "learnable query at chance)")
    return share * least_chance_cost(world).chance_cost / fw.N_QUERIES


@dataclass(frozen=True)
class Verdict:
    """One model against the margin: the held-out loss gap above the attainable loss, whether it is within the
    margin, the learnable queries at chance and the least accurate learnable target (name, accuracy)."""

    converged: bool
    gap: float
    at_chance: tuple[tuple[str, float], ...]
    least_accurate: tuple[str, float]


def judge(loss: float, accuracy: Sequence[float], batch: fw.Batch, world: fw.FactorWorld,
          margin: float) -> Verdict:
    """``loss`` and per-query ``accuracy`` (50, NaN for a query the set never asks) on ``batch`` against ``margin``
    (:func:`margin`). A learnable query is at chance when its accuracy does not exceed its chance accuracy
    max(r, 1 − r) by :data:`CHANCE_SE` binomial s.e. at its positions in the set."""
    asked = np.bincount(batch.queries.ravel(), minlength=fw.N_QUERIES)
    gap = float(loss) - world.attainable_loss_on(batch)
    at_chance, targets = [], []
    for query, value in zip(world.queries, accuracy, strict=True):
        if not query.learnable or not np.isfinite(value):
            continue
        chance = max(query.rate, 1 - query.rate)
        if value <= chance + CHANCE_SE * np.sqrt(chance * (1 - chance) / asked[query.index]):
            at_chance.append((query.name, float(value)))
        if query.role == "target":
            targets.append((query.name, float(value)))
    least = min(targets, key=lambda t: t[1], default=("", float("nan")))
    return Verdict(gap <= margin, gap, tuple(at_chance), least)


def reason(verdict: Verdict, margin: float, *, last: int, cap: int, to_margin: bool) -> str:
    """Why a model is not converged ("" when it is): where its training stopped at update ``last`` (the step ``cap``,
    the stopping set within the margin, or the fixed updates of a model not trained to the margin), its held-out
    loss gap, and the learnable queries at chance or else its least accurate target."""
    if verdict.converged:
        return ""
    gap = f"loss gap {verdict.gap:.4f} above the margin {margin:.4f}"
    if not to_margin:
        where = f"trained the fixed {last} updates (not trained to the margin): {gap}"
    elif last >= cap:
        where = f"step cap {cap} reached with {gap}"
    else:
        where = f"stopped at {last} updates within the margin on the stopping set; held-out {gap}"
    if verdict.at_chance:
        return f"{where}; at chance: {chance_words(verdict.at_chance)}"
    name, value = verdict.least_accurate
    return f"{where}; least accurate target: {name} ({value:.3f})"


def chance_words(at_chance: Sequence[tuple[str, float]]) -> str:
    """The queries at chance in words: each target with its accuracy, the factors counted."""
    targets = [f"{name} ({value:.3f})" for name, value in at_chance if not name.startswith("factor")]
    factors = len(at_chance) - len(targets)
    return ", ".join(targets + ([f"{factors} of {fw.N_FACTORS} factors"] if factors else []))


def convergence_table(runs: pd.DataFrame, world: fw.FactorWorld, *, n_eval: int, probe_seed: int, margin: float,
                      updates: int, max_updates: int, converge: Sequence[str]) -> pd.DataFrame:
    """Per model of a K04 runs table (:func:`lib.kstar.world.synthetic.model_table`), at its last update: the
    updates trained, whether it trained to the margin (``converge``) and its cap, the held-out loss, the loss
    attainable on the held-out set, their gap, the margin, converged, the learnable queries at chance and the
    reason it is not converged (:func:`judge`, :func:`reason`)."""
    batch = held_out_set(world, n_eval, probe_seed)
    names = [q.name for q in world.queries]
    accuracy = runs[runs.kind == "accuracy"]
    accuracy = accuracy[accuracy["update"] == accuracy.groupby("model")["update"].transform("max")]
    rows = []
    for model, at_last in accuracy.groupby("model", sort=False):
        values = at_last.set_index("query").value
        to_margin = model in converge
        last, cap = int(at_last["update"].iloc[0]), max_updates if to_margin else updates
        verdict = judge(values["loss"], values.reindex(names).to_numpy(float), batch, world, margin)
        rows.append({"model": model, "arch": at_last.arch.iloc[0], "updates": last, "to_margin": to_margin,
                     "cap": cap, "held_out_loss": float(values["loss"]), "attainable": world.attainable_loss_on(batch),
                     "loss_gap": verdict.gap, "margin": margin, "converged": verdict.converged,
                     "at_chance": chance_words(verdict.at_chance),
                     "reason": reason(verdict, margin, last=last, cap=cap, to_margin=to_margin)})
    return pd.DataFrame(rows)


def family_table(convergence: pd.DataFrame) -> pd.DataFrame:
    """Per architecture family: its models, how many reached the margin, which, and why each other one did not."""
    rows = []
    for arch, models in convergence.groupby("arch", sort=False):
        missed = models[~models.converged]
        rows.append({"arch": arch, "models": len(models), "converged": int(models.converged.sum()),
                     "not_converged": len(missed), "converged_models": ", ".join(models.model[models.converged]),
                     "why_not": "; ".join(f"{m}: {r}" for m, r in zip(missed.model, missed.reason, strict=True))})
    return pd.DataFrame(rows, columns=["arch", "models", "converged", "not_converged", "converged_models", "why_not"])


@dataclass(frozen=True)
class Population:
    """The models a claim about trained models reads (the converged ones), the note naming them and the families
    left out with their reasons, and why the claim is undefined ("" unless no model converged)."""

    models: tuple[str, ...]
    note: str
    undefined: str


def population(convergence: pd.DataFrame) -> Population:
    """The converged models of :func:`convergence_table`: counted per family, never silently dropped: a family
    without a converged model is named with each model's reason ("tested on transformers only: no GRU …"), and
    with none converged anywhere the claim is undefined with every reason."""
    families = family_table(convergence)
    models = tuple(convergence.model[convergence.converged])
    missing = families[families.converged == 0]
    why = "; ".join(missing.why_not)
    if not models:
        return Population((), "no model within the convergence margin",
                          f"no model reached the convergence margin ({why})")
    note = f"{len(models)} of {len(convergence)} models within the convergence margin ({', '.join(models)})"
    if len(missing):
        present = [f"{FAMILY_NAMES.get(a, a)}s" for a in families.arch[families.converged > 0]]
        absent = [FAMILY_NAMES.get(a, a) for a in missing.arch]
        note += f"; tested on {' and '.join(present)} only: no {' or '.join(absent)} reached it ({why})"
    return Population(models, note, "")
