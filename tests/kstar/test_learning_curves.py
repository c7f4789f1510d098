"""lib.kstar.label_budget.learning_curves: teachers, label sources, N* per curve and the panel of Eq. 57 (paper
002, A.4)."""

import math

import numpy as np
import pandas as pd
import pytest

from lib.kstar.label_budget import label_budget, learning_curves
from lib.kstar.tasks.tasks import TaskPool

WORDS = ["apple", "river", "stone", "cloud", "music", "paper", "green", "house"]


def _pool(n: int = 40) -> TaskPool:
    rng = np.random.default_rng(0)

    def split(seed_offset):
        y = (np.arange(n) + seed_offset) % 2
        texts = tuple(f"{' '.join(rng.choice(WORDS, 3))} {'excellent' if v else 'terrible'} {i + seed_offset}"
                      for i, v in enumerate(y))
        return texts, y

    (tr, y_tr), (te, y_te) = split(0), split(1000)
    return TaskPool("planted", tr, y_tr, te, y_te, ("neg", "pos"), ("pos",), np.arange(n), np.arange(n),
                    {"pos": 0.5}, "none", None, 0)


def test_teacher_is_cross_fitted_on_the_reference_and_aligns_text_by_text(sandbox):
    pool = _pool()
    teacher = learning_curves.teacher_table("tiny-bert", pool, ["pos"], block=1, max_tokens=16, folds=4)
    assert list(teacher.text_hash) == learning_curves.text_hashes(pool.texts_train)
    assert ((teacher.p >= 0) & (teacher.p <= 1)).all() and teacher.teacher_test_auroc.iloc[0] > 0.8
    assert ((teacher.p > 0.5) == teacher.y.astype(bool)).mean() > 0.8  # the planted word carries the label
    shuffled = teacher.sample(frac=1, random_state=0)
    assert np.allclose(learning_curves.align_teacher(shuffled, pool.texts_train), teacher.p)
    with pytest.raises(ValueError, match="no teacher label"):
        learning_curves.align_teacher(teacher, [*pool.texts_train[:-1], "a text of another pool"])
    with pytest.raises(ValueError, match="one label per training text"):
        learning_curves.align_teacher(teacher.iloc[:-1], pool.texts_train)
    with pytest.raises(ValueError, match="decision='neg'"):
        learning_curves.teacher_table("tiny-bert", pool, ["neg"], block=1, max_tokens=16)


def test_label_sources():
    y, p = np.array([0, 1, 1, 0]), np.array([0.2, 0.9, 0.4, 0.6])
    targets, strata = learning_curves.source_targets("ground_truth", y, None)
    assert targets.tolist() == [0, 1, 1, 0] and strata.tolist() == [0, 1, 1, 0]
    targets, strata = learning_curves.source_targets("hard_teacher", y, p)
    assert targets.tolist() == [0, 1, 0, 1] and strata.tolist() == [0, 1, 0, 1]
    targets, strata = learning_curves.source_targets("soft_teacher", y, p)
    assert targets.tolist() == p.tolist() and strata.tolist() == [0, 1, 0, 1]  # stratified on 1[p > ½]
    with pytest.raises(ValueError, match="source='teacher'"):
        learning_curves.source_targets("teacher", y, p)
    with pytest.raises(ValueError, match="needs teacher probabilities"):
        learning_curves.source_targets("soft_teacher", y, None)


def _runs(rows):
    return pd.DataFrame([{"student": s, "task": t, "source": "ground_truth", "decision": d, "seed": 0, "n": n,
                          "auroc": a} for s, t, d, n, a in rows])


def test_curves_average_decisions_and_requirements_follow_eq_55_56():
    runs = _runs([("m", "t", "a", 16, 0.6), ("m", "t", "b", 16, 0.8), ("m", "t", "a", 64, 0.9),
                  ("m", "t", "b", 64, 0.9), ("m", "u", "a", 64, 0.95), ("m", "u", "a", 16, 0.96)])
    curve = learning_curves.curves(runs)
    assert curve[curve.task == "t"].auroc.tolist() == pytest.approx([0.7, 0.9])
    assert curve[curve.task == "u"].n.tolist() == [16, 64]  # sorted by budget
    kstar = pd.DataFrame({"task": ["t", "u"], "kstar": [8.0, 1.0], "ceiling": [0.95, 0.99]})
    req = learning_curves.requirements(curve, kstar)
    t = req[(req.task == "t") & (req.reference == "endpoint")].iloc[0]
    assert t.n_star == pytest.approx(label_budget.n_star([16, 64], [0.7, 0.9]).value) and t.in_panel
    u = req[(req.task == "u") & (req.reference == "endpoint")].iloc[0]
    assert u.censored and not u.in_panel and u.n_star == 16
    assert learning_curves.censored_at_low_counts(req[req.reference == "endpoint"]) == (1, 1)
    low_ceiling = learning_curves.requirements(curve, kstar.assign(ceiling=[0.85, 0.99]))
    assert not low_ceiling.in_panel.any()  # the gate C_t > 0.90


def test_exponent_recovers_a_planted_slope_and_reports_why_it_cannot_fit():
    rng = np.random.default_rng(0)
    rows = []
    for student, offset in (("a", 1.0), ("b", 1.5)):
        for task, k in zip("pqrstu", [2, 4, 8, 32, 64, 128], strict=True):
            rows.append({"student": student, "task": task, "kstar": float(k), "in_panel": True,
                         "n_star": 10 ** (offset + 0.6 * math.log10(k) + rng.normal(0, 0.02))})
    fit = learning_curves.exponent(pd.DataFrame(rows), n_boot=100, seed=0)
    assert fit["b"] == pytest.approx(0.6, abs=0.05) and fit["low"] < fit["b"] < fit["high"]
    assert fit["n_obs"] == 12 and set(fit["slopes"]) == {"a", "b"} and fit["reason"] == ""
    one_task = pd.DataFrame(rows).query("task == 'p' or student == 'zz'")
    fit = learning_curves.exponent(one_task, n_boot=10, seed=0)
    assert math.isnan(fit["b"]) and "observations" in fit["reason"]


def test_gated_share_at_low_counts_is_the_null_share_of_the_censored_cells():
    rows = pd.DataFrame({"kstar": [1.0, 2.0, 8.0, 64.0, math.inf, 1.0], "ceiling": [0.95, 0.99, 0.95, 0.97, 0.99, 0.8]})
    assert learning_curves.gated_share_at_low_counts(rows) == pytest.approx(0.5)  # inf and C ≤ 0.90 leave
    assert math.isnan(learning_curves.gated_share_at_low_counts(rows.assign(ceiling=0.5)))


def _fit(n_obs: int, b: float, n_tasks: int, n_students: int = 2, low: float = 0.3) -> dict:
    return {"n_obs": n_obs, "b": b, "n_tasks": n_tasks, "n_students": n_students, "low": low, "high": 0.7}


def test_exponent_not_measured_names_what_the_panel_lacks():
    assert "needs at least three" in learning_curves.exponent_not_measured(_fit(2, math.nan, 2), math.nan)
    assert "not identified" in learning_curves.exponent_not_measured(_fit(4, math.nan, 4), math.nan)
    assert "task bootstrap" in learning_curves.exponent_not_measured(_fit(4, 0.5, 2), 0.1)
    assert "residual degree" in learning_curves.exponent_not_measured(_fit(3, 0.5, 3), math.nan)
    assert "no interval" in learning_curves.exponent_not_measured(_fit(8, 0.5, 4, low=math.nan), 0.1)
    assert learning_curves.exponent_not_measured(_fit(8, 0.5, 4), 0.1) == ""


def test_grid_mechanism_only_when_the_grid_cannot_show_the_paper_exponent_below_it():
    panel = pd.DataFrame({"kstar": [1.0, 30.0, 1000.0], "first_budget": [16.0] * 3, "last_budget": [256.0] * 3})
    text = learning_curves.grid_mechanism(panel, 0.3, 0.65, "requirements.parquet")
    assert "1.20 decades" in text and "1.95 decades" in text and text.endswith("(requirements.parquet)")
    assert learning_curves.grid_mechanism(panel, 0.8, 0.65, "requirements.parquet") == ""  # above the paper's b
    assert learning_curves.grid_mechanism(panel.assign(kstar=[1.0, 2.0, 4.0]), 0.3, 0.65, "r.parquet") == ""


def test_reference_counts_come_from_k01_only_when_its_arguments_agree(sandbox):
    from lib import config, results
    from lib.kstar import schemas

    k01 = config.validate("K01_kstar", {})
    assert "minilm" in k01.models and "pythia-70m" not in k01.models
    asked = {f: getattr(k01, f) for f in learning_curves.KSTAR_FIELDS}
    assert learning_curves.logged_reference("default", "minilm", asked) is None  # nothing logged yet
    run = results.start(k01)
    run.save_table("kstar", pd.DataFrame({"model": ["minilm", "smollm2-135m"], "task": ["t", "t"],
                                          "kstar": [8.0, 16.0], "ceiling": [0.95, 0.97]}))
    run.save_table("windows", pd.DataFrame({"model": ["minilm", "smollm2-135m"], "task": ["t", "t"],
                                            "best_block": [2, 3], "window": [[1, 2, 3, 4], [2, 3, 4, 5]]}))
    kstar, windows = learning_curves.logged_reference("default", "minilm", asked)
    assert kstar.kstar.tolist() == [8.0] and windows.best_block.tolist() == [2]
    assert learning_curves.logged_reference("default", "pythia-70m", asked) is None  # K01 did not measure it
    assert learning_curves.logged_reference("default", "minilm", {**asked, "cap": 100}) is None
    assert set(learning_curves.KSTAR_FIELDS) <= {f for f in vars(schemas.LabelBudget()) if f != "notebook"}
