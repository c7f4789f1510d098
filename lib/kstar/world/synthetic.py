"""The synthetic readout experiment of paper 002, App. A.3.4: train, read at the query position, count.

:func:`model_table` trains one model of the grid (:mod:`lib.kstar.world.networks`) on the factor world
(:mod:`lib.kstar.world.world`) and logs, in one long table, its training losses, its answer accuracy on
held-out sequences, and every probe candidate (Algorithm 1 of A.1.5, one probe seed) at the query
position of each layer, in the raw basis and in the full-rank PCA basis. :func:`counts_table` turns
the candidates into k^syn (:func:`lib.kstar.world.ksyn.synthetic_count`, Table 37); the remaining
functions compute the statistics of A.3.4 (family medians, the overlap control, the association of
counts with |S|) and the basis example of Proposition 7.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps
from sklearn.decomposition import PCA

from lib import parallel, results
from lib.kstar.protocol import fitscore, probe_search, rules
from lib.kstar.world import convergence, ksyn, networks
from lib.kstar.world import world as fw

BASES = ("raw", "pca")
#: σ above which Proposition 7's rotated basis needs two coordinates: √2/Φ⁻¹(0.975) ≈ 0.7215.
PROP7_SIGMA_MIN = math.sqrt(2.0) / float(sps.norm.ppf(0.975))
COUNT_KEYS = ["model", "update", "query", "basis"]


def check_plan(model_names: Sequence[str], tracked: Sequence[str], checkpoints: Sequence[int], updates: int,
               world: fw.FactorWorld) -> list[networks.NetworkSpec]:
    """Every problem of a K04 plan before any compute (ValueError naming the value): model names that do not
    parse or repeat, tracked queries not in the pool, checkpoints beyond the last update."""
    specs = [networks.parse_spec(name) for name in model_names]
    if not specs or len({s.name for s in specs}) != len(specs):
        raise ValueError(f"architectures={list(model_names)!r}; allowed: one or more distinct architecture names")
    for name in tracked:
        world.query(name)
    late = sorted(c for c in checkpoints if c > updates)
    if late:
        raise ValueError(f"checkpoints {late} exceed updates={updates}; allowed: checkpoints <= updates")
    return specs


def pca_basis(X_tr: np.ndarray, X_te: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The PCA basis of A.3.4: centre on the training features and rotate onto all d principal axes
    (a full-rank orthogonal change of basis; the test split uses the training mean and axes). Constant training
    features (the embedding layer at the query position) have no axes: they are only centred."""
    mean = X_tr.mean(axis=0)
    if not np.ptp(X_tr, axis=0).any():
        return X_tr - mean, X_te - mean
    pca = PCA(n_components=X_tr.shape[1], svd_solver="full").fit(X_tr)
    return pca.transform(X_tr), pca.transform(X_te)


def _searches(states_tr, states_te, y_tr, y_te, seed: int, readable_above: float, n_jobs: int,
              prefix_max: int) -> list[dict]:
    """Candidate rows of one query in one basis: the dense fit of every layer, the search at readable layers."""
    rows = []
    readable = []
    for layer in range(states_tr.shape[0]):
        dense, _ = fitscore.fit_score(states_tr[layer], y_tr, states_te[layer], y_te, seed)
        rows.append({"layer": layer, "path": "dense", "size": states_tr.shape[2], "value": dense})
        readable.append(dense > readable_above)
    if not any(readable):  # the gate of A.3.4: unreadable, no search needed
        return rows
    for layer in np.flatnonzero(readable):
        found = probe_search.search(states_tr[layer], y_tr, states_te[layer], y_te, seed, n_jobs=n_jobs,
                                    prefix_max=prefix_max)
        rows += [{"layer": int(layer), "path": c.path, "size": c.size, "value": c.auroc} for c in found.candidates]
    return rows


def measure(model, world: fw.FactorWorld, queries: Sequence[str], *, n_train: int, n_test: int, probe_seed: int = 0,
            bases: Sequence[str] = BASES, readable_above: float = rules.READABLE_ABOVE, n_jobs: int = 1,
            prefix_max: int = probe_search.PREFIX_MAX) -> pd.DataFrame:
    """Probe rows of one model state: for each query, basis and layer, the dense AUROC and (at layers whose
    dense AUROC exceeds ``readable_above``) every prefix and L1 candidate (A.3.4; one probe seed).

    Fresh measurement prefixes (``default_rng([probe_seed, 2])`` for training, ``[probe_seed, 3]`` for
    test), labelled by the true aggregate. Columns: query, basis, layer, path, size, value (AUROC).
    """
    unknown = sorted(set(bases) - set(BASES))
    if unknown:
        raise ValueError(f"bases holds {unknown}; allowed: {', '.join(BASES)}")
    train = world.probe_set(np.random.default_rng([probe_seed, 2]), n_train, queries)
    test = world.probe_set(np.random.default_rng([probe_seed, 3]), n_test, queries)
    frames = []
    for i, name in enumerate(queries):
        y_tr, y_te = train.labels[i], test.labels[i]
        if min(y_tr.sum(), (1 - y_tr).sum(), y_te.sum(), (1 - y_te).sum()) < 5:
            raise ValueError(f"query {name!r} has fewer than 5 examples of a class among n_train={n_train} or "
                             f"n_test={n_test}; allowed: larger probe sets")
        raw_tr, raw_te = networks.readout(model, train.tokens[i]), networks.readout(model, test.tokens[i])
        for basis in bases:
            if basis == "raw":
                states_tr, states_te = raw_tr, raw_te
            else:
                pairs = [pca_basis(a, b) for a, b in zip(raw_tr, raw_te, strict=True)]
                states_tr, states_te = np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])
            rows = _searches(states_tr, states_te, y_tr, y_te, probe_seed, readable_above, n_jobs, prefix_max)
            frames.append(pd.DataFrame(rows).assign(query=name, basis=basis))
    return pd.concat(frames, ignore_index=True)


@parallel.one_torch_thread()
def model_table(model: str, *, updates: int, checkpoints: Sequence[int],
                tracked: Sequence[str], n_train: int, n_test: int, n_eval: int = 512, batch_size: int = 256,
                lr: float = 1e-3, probe_seed: int = 0, readable_above: float = rules.READABLE_ABOVE,
                n_jobs: int = 1, loss_margin: float | None = None, max_updates: int | None = None,
                check_every: int = 500, world: fw.FactorWorld | None = None) -> pd.DataFrame:
    """Train the model named ``model`` (:func:`lib.kstar.world.networks.parse_spec`) and measure it (A.3.3–A.3.4): one
    long table with a ``kind`` column.

    kind "loss": the batch loss of Eq. 49 per update; "accuracy": answer accuracy per pool query on
    ``n_eval`` held-out sequences (:func:`lib.kstar.world.convergence.held_out_set`) at each checkpoint and at the end,
    plus the held-out loss as query "loss"; "probe": candidates of :func:`measure` — the ``tracked``
    queries at every checkpoint, all 18 aggregate queries after the last update.

    ``loss_margin``: train past ``updates`` until the answer loss on a separate stopping set of ``n_eval``
    sequences (:func:`lib.kstar.world.convergence.stopping_set`, so the reported held-out loss is not the one
    stopped on) lies within ``loss_margin`` (:func:`lib.kstar.world.convergence.margin`) of the loss attainable on
    that set (:meth:`lib.kstar.world.world.FactorWorld.attainable_loss_on`: controls and the two parity targets the
    paper's models leave at chance at log 2, every other answer at zero), checked every ``check_every`` updates, at
    most ``max_updates``; the last update is then the model's own.

    The model trains and is read on one torch thread (:func:`lib.parallel.one_torch_thread`), so its numbers do not
    depend on the machine's cores or on ``lib run --jobs``; :func:`model_tables` trains several side by side.
    """
    world = world or fw.FactorWorld()
    spec = networks.parse_spec(model)
    model = networks.build(spec)
    converged = None
    if loss_margin is not None:
        stopping = convergence.stopping_set(world, n_eval, probe_seed)
        target = world.attainable_loss_on(stopping) + loss_margin
        converged = lambda m: networks.evaluate(m, stopping)[0] <= target  # noqa: E731
    trained = networks.train(model, world, updates, seed=spec.seed, batch_size=batch_size, lr=lr,
                             checkpoints=checkpoints, converged=converged, check_every=check_every,
                             max_updates=max_updates)
    last = len(trained.losses)
    evaluation = convergence.held_out_set(world, n_eval, probe_seed)
    aggregates = [q.name for q in world.queries if q.role != "factor"]
    frames = [pd.DataFrame({"kind": "loss", "update": np.arange(1, last + 1), "value": trained.losses})]
    for update in sorted(trained.snapshots):
        model.load_state_dict(trained.snapshots[update])
        loss, accuracy = networks.evaluate(model, evaluation)
        frames.append(pd.DataFrame({"kind": "accuracy", "update": update, "query": [q.name for q in world.queries]
                                    + ["loss"], "value": [*accuracy, loss]}))
        queries = aggregates if update == last else list(tracked)
        if queries:
            frames.append(measure(model, world, queries, n_train=n_train, n_test=n_test, probe_seed=probe_seed,
                                  readable_above=readable_above, n_jobs=n_jobs).assign(kind="probe", update=update))
    table = pd.concat(frames, ignore_index=True)
    table.insert(0, "model", spec.name)
    for column, value in (("arch", spec.arch), ("width", spec.width), ("depth", spec.depth), ("seed", spec.seed)):
        table[column] = value
    return table


def model_tables(names: Sequence[str], converge: Sequence[str], *, model_args: dict, converge_args: dict,
                 n_jobs: int = 1) -> pd.DataFrame:
    """:func:`model_table` of every model in ``names`` (those in ``converge`` trained to the convergence margin with
    ``converge_args``), each cached by :func:`lib.results.shared_table`, trained side by side on ``n_jobs`` worker
    processes (:func:`lib.parallel.parallel_map`; −1: this process's share of the cores). Each model trains on one
    thread, so the tables do not depend on ``n_jobs`` or the cores; the models are independent (A.3.4). Two of the
    default's models side by side on two cores take about as long as the two one after the other on two threads
    each (benchmarks/bench_training.py): one thread per model costs no time and makes the numbers the cache keeps
    the same whatever the thread count. Inside a worker the probe fits run inline."""
    inner = model_args["n_jobs"] if n_jobs == 1 else 1
    items = [(name, {**model_args, "n_jobs": inner, **(converge_args if name in converge else {})})
             for name in names]
    return pd.concat(parallel.parallel_map(_cached_model_table, items, n_jobs=n_jobs), ignore_index=True)


def _cached_model_table(item: tuple[str, dict], _seed: int) -> pd.DataFrame:
    """One model's table through the table cache (the worker of :func:`model_tables`; the seed is the spec's)."""
    name, args = item
    return results.shared_table(model_table, name, **args)


def last_updates(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``table`` (a ``model`` and an ``update`` column) at each model's own last update."""
    return table[table["update"] == table.groupby("model")["update"].transform("max")]


def _query_columns(frame: pd.DataFrame, world: fw.FactorWorld) -> pd.DataFrame:
    info = {q.name: (q.role, q.function, q.size) for q in world.queries}
    frame = frame.copy()
    frame["role"] = [info[q][0] for q in frame["query"]]
    frame["function"] = [info[q][1] for q in frame["query"]]
    frame["n_factors"] = [info[q][2] for q in frame["query"]]
    return frame


def counts_table(table: pd.DataFrame, frac: float = rules.FRAC, readable_above: float = rules.READABLE_ABOVE,
                 world: fw.FactorWorld | None = None) -> pd.DataFrame:
    """k^syn per model × update × query × basis from the probe rows (A.3.4, Table 37).

    Columns: the keys, role, function, n_factors, ceiling (largest dense AUROC over layers), readable,
    count (NaN when unreadable: never a count), layer.
    """
    probes = table[table.kind == "probe"]
    out = []
    for key, group in probes.groupby(COUNT_KEYS, sort=False):
        layers = {}
        for layer, at_layer in group.groupby("layer"):
            dense = float(at_layer.loc[at_layer.path == "dense", "value"].iloc[0])
            sparse = at_layer[at_layer.path != "dense"]
            pairs = list(zip(sparse["size"], sparse["value"], strict=True))
            layers[int(layer)] = (dense, pairs)
        found = ksyn.synthetic_count(layers, frac, readable_above)
        out.append({**dict(zip(COUNT_KEYS, key, strict=True)), "ceiling": found.ceiling, "readable": found.readable,
                    "count": float(found.count) if found.readable else math.nan,
                    "layer": found.layer if found.readable else -1})
    return _query_columns(pd.DataFrame(out), world or fw.FactorWorld())


def family_medians(counts: pd.DataFrame) -> pd.DataFrame:
    """Per basis, role and family: readable models, median count, range (A.3.4 "Result"; Figure 10)."""
    readable = counts[counts.readable & (counts.role != "factor")]
    out = (readable.groupby(["basis", "role", "function", "n_factors"]).agg(
        readable=("count", "size"), median=("count", "median"), low=("count", "min"), high=("count", "max"))
        .reset_index())
    totals = counts[counts.role != "factor"].groupby(["basis", "role", "function", "n_factors"]).size()
    return out.merge(totals.rename("models").reset_index(), how="right").fillna({"readable": 0})


def overlap_comparison(counts: pd.DataFrame, overlap: str = "threshold8_control") -> pd.DataFrame:
    """Per basis: median count of the overlap control against the other readable controls, and the two-sided
    Mann–Whitney p-value (A.3.4, "Overlapping inputs"). NaN where a side has no readable control."""
    rows = []
    for basis, controls in counts[counts.readable & (counts.role == "control")].groupby("basis"):
        mine = controls.loc[controls["query"] == overlap, "count"]
        others = controls.loc[controls["query"] != overlap, "count"]
        p = (float(sps.mannwhitneyu(mine, others, alternative="two-sided").pvalue)
             if len(mine) and len(others) else math.nan)
        rows.append({"basis": basis, "overlap_n": len(mine), "overlap_median": mine.median(),
                     "others_n": len(others), "others_median": others.median(), "mannwhitney_p": p})
    return pd.DataFrame(rows, columns=["basis", "overlap_n", "overlap_median", "others_n", "others_median",
                                       "mannwhitney_p"])


def size_association(counts: pd.DataFrame) -> pd.DataFrame:
    """Per basis, over readable threshold and conjunction controls: Spearman ρ between |S| and the count, its
    two-sided p-value, and the least-squares slope of log count on log |S| (A.3.4, "Idealized factor coordinates")."""
    rows = []
    chosen = counts[counts.readable & (counts.role == "control") & counts.function.isin(["threshold", "conjunction"])]
    for basis, controls in chosen.groupby("basis"):
        if len(controls) >= 3 and controls.n_factors.nunique() > 1 and controls["count"].nunique() > 1:
            test = sps.spearmanr(controls.n_factors, controls["count"])
            rho, p = float(test.statistic), float(test.pvalue)
            slope = float(np.polyfit(np.log(controls.n_factors), np.log(controls["count"]), 1)[0])
        else:
            rho = p = slope = math.nan
        rows.append({"basis": basis, "n": len(controls), "spearman": rho, "p": p, "loglog_slope": slope})
    return pd.DataFrame(rows, columns=["basis", "n", "spearman", "p", "loglog_slope"])


def prop7_sample(rng: np.random.Generator, n: int, sigma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(U, V, y) of Proposition 7 (A.3.4; statement re-derived from its proof): U = (2Y − 1, N) with N ~ N(0, σ²)
    independent of a fair Y, and V = QU for the 45° rotation Q = [[1, 1], [1, −1]]/√2."""
    if not sigma > 0:
        raise ValueError(f"sigma={sigma!r} is out of range; allowed: > 0")
    y = rng.integers(0, 2, size=n)
    U = np.column_stack([2.0 * y - 1.0, rng.normal(0.0, sigma, size=n)])
    Q = np.array([[1.0, 1.0], [1.0, -1.0]]) / math.sqrt(2.0)
    return U, U @ Q.T, y


def prop7_coordinate_auroc(sigma: float) -> float:
    """Population AUROC of either coordinate of V in Proposition 7: Φ(√2/σ) (A.3.4)."""
    return float(sps.norm.cdf(math.sqrt(2.0) / sigma))


def prop7_table(sigma: float, n: int, seed: int = 0) -> pd.DataFrame:
    """Proposition 7 through the real estimator: k^syn in U and in V = QU (one search each, two thirds of ``n``
    to train), beside the best single-coordinate test AUROC and its population value (1 in U, Φ(√2/σ) in V)."""
    U, V, y = prop7_sample(np.random.default_rng([seed, 7]), n, sigma)
    cut = 2 * n // 3
    rows = []
    for name, rep, population in (("U", U, 1.0), ("V = QU", V, prop7_coordinate_auroc(sigma))):
        found = probe_search.search(rep[:cut], y[:cut], rep[cut:], y[cut:], seed)
        single = max(c.auroc for c in found.candidates if c.size == 1)
        rows.append({"basis": name, "sigma": sigma, "dense_auroc": found.dense_auroc,
                     "count": ksyn.synthetic_count({1: found}).count, "best_single_auroc": single,
                     "population_single_auroc": population})
    return pd.DataFrame(rows)


def label_rate_table(world: fw.FactorWorld, n: int, seed: int = 0) -> pd.DataFrame:
    """Lemma 4 on ``n`` fresh prefixes: each aggregate query's empirical label rate beside the closed form,
    with the binomial standard error and the z-score of the difference."""
    queries = [q for q in world.queries if q.role != "factor"]
    probes = world.probe_set(np.random.default_rng([seed, 5]), n, [q.name for q in queries])
    rates = [fw.label_rate(q.function, q.size) for q in queries]
    out = pd.DataFrame({"query": [q.name for q in queries], "function": [q.function for q in queries],
                        "n_factors": [q.size for q in queries], "rate": probes.labels.mean(axis=1), "lemma4": rates})
    out["se"] = np.sqrt(out.lemma4 * (1 - out.lemma4) / n)
    out["z"] = (out.rate - out.lemma4) / out.se
    return out
