"""Paper 002's hub task pools (lib.kstar.tasks.hub_tasks, App. A.1.3), built offline from tiny local datasets.

Each fixture writes a folder laid out as the hub repository is (parquet or json files per split, a
README whose ``configs`` name them where the repository has one); the builders read it through the
same ``datasets.load_dataset`` call they make on the hub id, with the hub off.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import datasets
import numpy as np
import pytest

from lib.kstar.tasks import hub_tasks, tasks
from lib.kstar.tasks.hub_tasks import HUB_TASK_DEFINITIONS, MISSING_TASKS, HubDatasetUnavailableError, HubSource


@pytest.fixture(autouse=True)
def hub_off(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    datasets.disable_progress_bars()
    yield
    datasets.enable_progress_bars()


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "hf_cache"


def _parquet(path: Path, columns: dict[str, list], features: datasets.Features | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    datasets.Dataset.from_dict(columns, features=features).to_parquet(str(path))


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def _readme(folder: Path, configs: dict[str, dict[str, str]]) -> None:
    """A dataset card whose ``configs`` map each config's splits to files, as the hub repositories' cards do."""
    lines = ["---", "configs:"]
    for name, splits in configs.items():
        lines += [f"- config_name: {name}", "  data_files:"]
        lines += [f"  - split: {split}\n    path: {path}" for split, path in splits.items()]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text("\n".join(lines + ["---", ""]))


def _words(rng: np.random.Generator, n: int) -> str:
    vocabulary = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"]
    return " ".join(rng.choice(vocabulary, size=n))


def _nonce_words(rng: np.random.Generator, n: int) -> str:
    """``n`` random six-letter words: texts of them are never near-duplicates of each other."""
    return " ".join("".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=6)) for _ in range(n))


def _split_counts(pool: tasks.TaskPool, split: str) -> dict[str, int]:
    y = pool.y_train if split == "train" else pool.y_test
    return {c: int((y == i).sum()) for i, c in enumerate(pool.classes)}


def _disjoint(pool: tasks.TaskPool) -> None:
    assert not set(pool.texts_train) & set(pool.texts_test)
    assert len(set(pool.texts_train)) == len(pool.texts_train) and len(set(pool.texts_test)) == len(pool.texts_test)


# --------------------------------------------------------------------------- the table


def test_the_table_covers_the_fourteen_core_tasks():
    core = [n for n, t in HUB_TASK_DEFINITIONS.items() if t.tier == "core"]
    assert len(core) + len(MISSING_TASKS) == 14 and not set(core) & set(MISSING_TASKS)
    assert {t.tier for t in HUB_TASK_DEFINITIONS.values()} == {"core", "additional"}
    for name, task in HUB_TASK_DEFINITIONS.items():
        assert task.name == name and task.sources and task.build.__name__.startswith("build_")
        assert task.min_positives == (5 if task.tier == "core" else 20)


def test_every_revision_is_a_commit_or_marked_to_be_pinned():
    for task in HUB_TASK_DEFINITIONS.values():
        for source in task.sources:
            is_commit = re.fullmatch(r"[0-9a-f]{40}", source.revision) is not None
            assert is_commit == source.pinned, source.describe()


def test_a_task_without_builder_is_refused_with_its_reason():
    with pytest.raises(ValueError, match="no builder: .*ai4privacy.*allowed: harmfulness"):
        hub_tasks.build_hub_pool("pii")
    with pytest.raises(ValueError, match="cap"):
        hub_tasks.build_hub_pool("ag_news", cap=1)


def test_a_hub_id_that_is_not_cached_fails_in_one_line(cache):
    source = HubSource("probe-companion-tests/surely-not-cached", "0123456789abcdef0123456789abcdef01234567", True,
                       "text", "label", hub_tasks.NATIVE, config="plus")
    with pytest.raises(HubDatasetUnavailableError) as caught:
        hub_tasks.read_hub_source(source, cache_dir=cache)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("error: dataset 'probe-companion-tests/surely-not-cached' (revision 0123456789abcdef")
    assert "is not in the local cache and the hub is off" in message
    assert ("datasets.load_dataset('probe-companion-tests/surely-not-cached', 'plus', "
            "revision='0123456789abcdef0123456789abcdef01234567')") in message
    assert "HF_HUB_OFFLINE=0" in message


def test_a_builder_on_its_uncached_hub_id_names_the_fetch_command(cache):
    with pytest.raises(HubDatasetUnavailableError, match=r"allenai/wildguardmix.*gated"):
        hub_tasks.build_harmfulness(cache_dir=cache)
    with pytest.raises(HubDatasetUnavailableError, match=r"load_dataset\('fancyzhx/ag_news', revision='main'\)"):
        hub_tasks.build_hub_pool("ag_news", cache_dir=cache)


# --------------------------------------------------------------------------- multiclass tasks

TOPICS = ["World", "Sports", "Business", "Sci/Tech"]


@pytest.fixture
def ag_news(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(1)
    features = datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=TOPICS)})
    folder = tmp_path / "ag_news"
    for split, sizes in (("train", (160, 120, 80, 40)), ("test", (40, 30, 20, 10))):
        labels = [k for k, n in enumerate(sizes) for _ in range(n)]
        texts = [f"{split} story {i}: {_words(rng, 8)}" for i, k in enumerate(labels)]  # no cue to the topic
        texts[1] = texts[0]  # a duplicate of the same class: dropped
        _parquet(folder / "data" / f"{split}-00000-of-00001.parquet", {"text": texts, "label": labels}, features)
    return {"fancyzhx/ag_news": folder}


def test_ag_news_evaluates_every_topic_and_the_cap_subsamples_them_alike(ag_news, cache):
    pool = hub_tasks.build_ag_news(cap=100, seed=3, sources=ag_news, cache_dir=cache)
    assert pool.classes == tuple(sorted(TOPICS)) and pool.evaluated == pool.classes
    assert len(pool.texts_train) == 100 and len(pool.texts_test) == 99  # 100 test texts less a duplicate: under the cap
    train = _split_counts(pool, "train")
    assert train == {"Business": 20, "Sci/Tech": 10, "Sports": 30, "World": 40}  # proportional to 80/40/120/159
    assert pool.counts["duplicates_dropped"] == 2
    _disjoint(pool)
    assert "fancyzhx/ag_news@main" in pool.source and "local" in pool.source
    skipped = {d.name: d.skipped for d in pool.decisions(hub_tasks.min_positives("ag_news"))}
    assert skipped["Sci/Tech"].startswith("fewer than 20:")  # an additional task needs 20 positives per split
    assert [skipped[c] for c in ("Business", "Sports", "World")] == [None] * 3


def test_a_hub_pool_drops_near_copies_and_excludes_a_planted_cue_by_the_catalogues_rule(tmp_path, cache):
    rng = np.random.default_rng(5)
    features = datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=TOPICS)})
    folder = tmp_path / "ag_news"
    train_texts = {}
    for split in ("train", "test"):
        labels = [k for k in range(4) for _ in range(40)]
        texts = [_nonce_words(rng, 24 if k == 0 else 8) for k in labels]  # World's texts three times as long
        if split == "test":
            texts[-1] = train_texts[-1] + "."  # a near copy of a training text
        train_texts = texts
        _parquet(folder / "data" / f"{split}-00000-of-00001.parquet", {"text": texts, "label": labels}, features)
    pool = hub_tasks.build_ag_news(seed=0, sources={"fancyzhx/ag_news": folder}, cache_dir=cache)
    assert pool.counts["near_duplicates_dropped"] >= 1 and train_texts[-1] not in pool.texts_test
    skipped = {d.name: d.skipped for d in pool.decisions(hub_tasks.min_positives("ag_news"))}
    assert skipped["World"].startswith("surface cue AUROC >= 0.95: length") and pool.cue_auroc["World"]["length"] > 0.95


def test_the_same_seed_gives_the_same_pool(ag_news, cache):
    first = hub_tasks.build_hub_pool("ag_news", cap=60, seed=5, sources=ag_news, cache_dir=cache)
    again = hub_tasks.build_hub_pool("ag_news", cap=60, seed=5, sources=ag_news, cache_dir=cache)
    assert first.texts_train == again.texts_train and first.texts_test == again.texts_test


@pytest.fixture
def banking77(tmp_path: Path) -> dict[str, Path]:
    """The parquet export's layout (default/<split>/0000.parquet): ten intents of 40-49 training texts, 30 of 20."""
    rng = np.random.default_rng(2)
    names = [f"intent_{k:02d}" for k in range(40)]
    features = datasets.Features({"text": datasets.Value("string"), "label": datasets.ClassLabel(names=names)})
    folder = tmp_path / "banking77"
    for split, frequent, rare in (("train", lambda k: 40 + k, 20), ("test", lambda k: 10, 5)):
        sizes = [frequent(k) if k < 10 else rare for k in range(40)]
        labels = [k for k, n in enumerate(sizes) for _ in range(n)]
        texts = [f"{names[k]} {split} request {i} {_words(rng, 6)}" for i, k in enumerate(labels)]
        _parquet(folder / "default" / split / "0000.parquet", {"text": texts, "label": labels}, features)
    return {"PolyAI/banking77": folder}


def test_banking77_keeps_its_ten_most_frequent_intents_at_a_five_percent_floor(banking77, cache):
    pool = hub_tasks.build_banking77(seed=0, sources=banking77, cache_dir=cache)
    assert pool.evaluated == tuple(f"intent_{k:02d}" for k in range(10))
    for split, rarest, size in (("train", 40, 800), ("test", 10, 200)):
        counts = _split_counts(pool, split)
        assert sum(counts.values()) == size  # lowered from the full split so the rarest keeps 5%
        assert all(counts[f"intent_{k:02d}"] == (40 + k if split == "train" else 10) for k in range(10))
        assert min(counts[c] for c in pool.evaluated) / size >= hub_tasks.BANKING_MIN_RATE
        assert min(counts[c] for c in pool.evaluated) == rarest
        assert sum(n for c, n in counts.items() if c not in pool.evaluated) > 0  # the rest from other intents
    _disjoint(pool)
    capped = hub_tasks.build_banking77(cap=600, seed=0, sources=banking77, cache_dir=cache)
    assert len(capped.texts_train) == 600 and len(capped.texts_test) == 200


@pytest.fixture
def clinc(tmp_path: Path) -> dict[str, Path]:
    """clinc/clinc_oos: configs named by the card, the ``plus`` one with 30 in-scope intents and ``oos``."""
    rng = np.random.default_rng(3)
    names = [f"in_scope_{k:02d}" for k in range(30)] + ["oos"]
    features = datasets.Features({"text": datasets.Value("string"), "intent": datasets.ClassLabel(names=names)})
    folder = tmp_path / "clinc_oos"
    _readme(folder, {"plus": {s: f"plus/{s}-*.parquet" for s in ("train", "validation", "test")}})
    for split, per_intent, oos in (("train", 12, 40), ("validation", 3, 5), ("test", 6, 20)):
        labels = [k for k in range(30) for _ in range(per_intent)] + [30] * oos
        texts = [f"{names[k]} {split} query {i} {_words(rng, 5)}" for i, k in enumerate(labels)]
        _parquet(folder / "plus" / f"{split}-00000-of-00001.parquet", {"text": texts, "intent": labels}, features)
    return {"clinc/clinc_oos": folder}


def test_clinc150_samples_twenty_in_scope_intents_and_fills_the_cap_with_the_rest(clinc, cache):
    pool = hub_tasks.build_clinc150(cap=300, seed=7, sources=clinc, cache_dir=cache)
    assert len(pool.evaluated) == 20 and "oos" not in pool.evaluated
    assert set(pool.evaluated) < set(pool.classes) and "oos" in pool.classes
    train, test = _split_counts(pool, "train"), _split_counts(pool, "test")
    assert sum(train.values()) == 300 and all(train[c] == 12 for c in pool.evaluated)  # every evaluated text kept
    assert sum(test.values()) == 30 * 6 + 20 and all(test[c] == 6 for c in pool.evaluated)
    assert not any("validation" in t for t in pool.texts_train + pool.texts_test)  # native train/test only
    other = hub_tasks.build_clinc150(cap=300, seed=8, sources=clinc, cache_dir=cache)
    assert other.evaluated != pool.evaluated  # sampled with the pool's seed
    _disjoint(pool)


@pytest.fixture
def massive(tmp_path: Path) -> dict[str, Path]:
    """The parquet export's layout, one folder per locale: en-US is read, fr-FR is not."""
    rng = np.random.default_rng(4)
    names = [f"scenario_intent_{k:02d}" for k in range(30)]
    features = datasets.Features({"utt": datasets.Value("string"), "intent": datasets.ClassLabel(names=names),
                                  "locale": datasets.Value("string")})
    folder = tmp_path / "massive"
    for locale in ("en-US", "fr-FR"):
        for split, n in (("train", 25), ("validation", 4), ("test", 21)):
            labels = [k for k in range(30) for _ in range(n)]
            texts = [f"{locale} {split} {_words(rng, 8)}" for _ in labels]  # nothing in a text names its intent
            _parquet(folder / locale / split / "0000.parquet",
                     {"utt": texts, "intent": labels, "locale": [locale] * len(labels)}, features)
    return {"AmazonScience/massive": folder}


def test_massive_reads_its_locale_and_samples_twenty_intents(massive, cache):
    pool = hub_tasks.build_massive(cap=600, seed=1, sources=massive, cache_dir=cache)
    assert all(t.startswith("en-US") for t in pool.texts_train + pool.texts_test)
    assert len(pool.evaluated) == 20
    train = _split_counts(pool, "train")
    assert sum(train.values()) == 600 and all(train[c] == 25 for c in pool.evaluated)
    decisions = pool.decisions(hub_tasks.min_positives("massive"))
    assert [d.skipped for d in decisions] == [None] * 20  # 25 and 21 positives: above the additional tasks' 20
    _disjoint(pool)


EMOTIONS = ["sadness", "joy", "love", "anger", "fear", "surprise"]


@pytest.fixture
def setfit(tmp_path: Path) -> dict[str, Path]:
    """SetFit/emotion and SetFit/20_newsgroups: json lines per split with text, label and label_text."""
    rng = np.random.default_rng(5)
    groups = [f"group.{k:02d}" for k in range(15)]
    folders = {}
    for hub_id, names, splits in (("SetFit/emotion", EMOTIONS, ("train", "validation", "test")),
                                  ("SetFit/20_newsgroups", groups, ("train", "test"))):
        folder = tmp_path / hub_id.replace("/", "__")
        for split in splits:
            rows = [{"text": f"{name} {split} {i} {_words(rng, 6)}", "label": k, "label_text": name}
                    for k, name in enumerate(names) for i in range(12 if split == "train" else 6)]
            _jsonl(folder / f"{split}.jsonl", rows)
        folders[hub_id] = folder
    return folders


def test_emotion_and_newsgroups_read_the_label_text(setfit, cache):
    emotion = hub_tasks.build_emotion(cap=48, seed=0, sources=setfit, cache_dir=cache)
    assert emotion.evaluated == tuple(sorted(EMOTIONS))
    assert set(_split_counts(emotion, "train").values()) == {8} and len(emotion.texts_test) == 36
    newsgroups = hub_tasks.build_twenty_newsgroups(cap=150, seed=0, sources=setfit, cache_dir=cache)
    assert len(newsgroups.evaluated) == 10 and len(newsgroups.classes) == 15
    train = _split_counts(newsgroups, "train")
    assert sum(train.values()) == 150 and all(train[c] == 12 for c in newsgroups.evaluated)
    for pool in (emotion, newsgroups):
        _disjoint(pool)


@pytest.fixture
def language_id(tmp_path: Path) -> dict[str, Path]:
    """papluca/language-identification: train/valid/test csv files with ``labels`` and ``text``."""
    rng = np.random.default_rng(6)
    codes = ["ar", "bg", "de", "el", "en", "es", "fr", "hi", "it", "ja", "nl", "tr", "ur", "vi", "zh"]
    folder = tmp_path / "language-identification"
    folder.mkdir()
    for split, n in (("train", 20), ("valid", 5), ("test", 8)):
        rows = [(code, f"{code} {split} {i} {_words(rng, 60)}") for code in codes for i in range(n)]
        datasets.Dataset.from_dict({"labels": [r[0] for r in rows], "text": [r[1] for r in rows]}).to_csv(
            str(folder / f"{split}.csv"), index=False)
    return {"papluca/language-identification": folder}


def test_language_id_keeps_the_papers_ten_languages_cut_to_256_characters(language_id, cache):
    pool = hub_tasks.build_language_id(cap=100, seed=0, sources=language_id, cache_dir=cache)
    assert pool.classes == pool.evaluated == tuple(sorted(hub_tasks.LANGUAGES))
    assert max(len(t) for t in pool.texts_train + pool.texts_test) <= 256
    assert set(_split_counts(pool, "train").values()) == {10} and set(_split_counts(pool, "test").values()) == {8}
    _disjoint(pool)


# --------------------------------------------------------------------------- binary tasks


@pytest.fixture
def wildguard(tmp_path: Path) -> dict[str, Path]:
    """allenai/wildguardmix's layout: two configs, wildguardtrain (train) and wildguardtest (test).

    Harmful plain prompts are short and adversarial ones long, as in the source, with overlap; 300
    harmful and 200 unharmful prompts, a few duplicates and unlabelled rows.
    """
    rng = np.random.default_rng(7)
    folder = tmp_path / "wildguardmix"
    _readme(folder, {"wildguardtrain": {"train": "train/wildguard_train.parquet"},
                     "wildguardtest": {"test": "test/wildguard_test.parquet"}})
    prompts, adversarial, harm = [], [], []
    for i in range(500):
        harmful = i < 300
        framed = bool(rng.random() < 0.5)
        words = int(rng.lognormal(3.4 if framed else 2.6, 0.5)) + 1
        prompts.append(f"prompt {i} {'harm' if harmful else 'safe'} {_words(rng, words)}")
        adversarial.append(framed)
        harm.append("harmful" if harmful else "unharmful")
    prompts += prompts[:5] + ["unlabelled prompt"]
    adversarial += adversarial[:5] + [False]
    harm += harm[:5] + [None]
    columns = {"prompt": prompts, "adversarial": adversarial, "prompt_harm_label": harm,
               "response": [None] * len(prompts), "subcategory": ["others"] * len(prompts)}
    _parquet(folder / "train" / "wildguard_train.parquet", columns)
    _parquet(folder / "test" / "wildguard_test.parquet", {k: v[:20] for k, v in columns.items()})
    return {"allenai/wildguardmix": folder}


def test_harmfulness_keeps_its_natural_ratio_and_holds_out_twenty_percent_per_class(wildguard, cache):
    pool = hub_tasks.build_harmfulness(seed=0, sources=wildguard, cache_dir=cache)
    assert pool.classes == ("unharmful", "harmful") and pool.evaluated == ("harmful",)
    assert _split_counts(pool, "test") == {"unharmful": 40, "harmful": 60}  # 20% of 200 and of 300, after dedupe
    assert _split_counts(pool, "train") == {"unharmful": 160, "harmful": 240}
    assert pool.counts["duplicates_dropped"] == 5
    capped = hub_tasks.build_harmfulness(cap=100, seed=0, sources=wildguard, cache_dir=cache)
    assert _split_counts(capped, "train") == {"unharmful": 40, "harmful": 60}  # the cap keeps the 2:3 ratio
    assert set(capped.texts_test) == set(pool.texts_test)  # the split does not depend on the cap
    _disjoint(pool)


def test_jailbreak_is_harmful_prompts_only_length_matched_and_balanced(wildguard, cache):
    pool = hub_tasks.build_jailbreak(seed=0, sources=wildguard, cache_dir=cache)
    assert pool.classes == ("vanilla", "adversarial")
    assert all(" harm " in t for t in pool.texts_train + pool.texts_test)
    for split in ("train", "test"):
        counts = _split_counts(pool, split)
        assert counts["vanilla"] == counts["adversarial"] > 0
    texts = np.array(pool.texts_train + pool.texts_test)
    labels = np.concatenate([pool.y_train, pool.y_test])
    lengths = np.array([len(t) for t in texts])
    medians = [np.median(lengths[labels == k]) for k in (0, 1)]
    assert abs(medians[0] - medians[1]) / max(medians) < 0.10  # A.1.3: medians within 10% after matching
    assert max(lengths) <= 2000
    assert abs(pool.length_auroc["adversarial"] - 0.5) < 0.2
    assert pool.counts["prepared_texts"] < pool.counts["source_texts"]  # unpaired prompts went
    _disjoint(pool)


@pytest.fixture
def routing(tmp_path: Path) -> dict[str, Path]:
    """openai/gsm8k (config ``main``) and the seven subject configs of EleutherAI/hendrycks_math."""
    rng = np.random.default_rng(8)
    gsm8k, math = tmp_path / "gsm8k", tmp_path / "hendrycks_math"
    _readme(gsm8k, {"main": {s: f"main/{s}-*.parquet" for s in ("train", "test")}})
    _readme(math, {subject: {s: f"{subject}/{s}-*.parquet" for s in ("train", "test")}
                   for subject in hub_tasks.MATH_SUBJECTS})
    for split, n in (("train", 80), ("test", 24)):
        questions = [f"gsm8k {split} {i}: {_words(rng, 12)}" for i in range(n)]
        questions[0] = "long " * 300  # longer than 1200 characters: dropped
        _parquet(gsm8k / "main" / f"{split}-00000-of-00001.parquet", {"question": questions, "answer": ["#### 1"] * n})
        for subject in hub_tasks.MATH_SUBJECTS:
            problems = [f"$x$ {subject} {split} {i}: {_words(rng, 10)}" for i in range(n // 8)]
            problems[0] += " [asy] draw((0,0)--(1,1)); [/asy]"  # figure code: dropped
            _parquet(math / subject / f"{split}-00000-of-00001.parquet",
                     {"problem": problems, "level": ["Level 1"] * len(problems), "type": [subject] * len(problems),
                      "solution": ["..."] * len(problems)})
    return {hub_tasks.GSM8K: gsm8k, hub_tasks.MATH: math}


def test_routing_filters_math_and_gsm8k_and_balances_exactly(routing, cache):
    pool = hub_tasks.build_routing(seed=0, sources=routing, cache_dir=cache)
    assert pool.classes == ("gsm8k", "math") and pool.evaluated == ("math",)
    assert _split_counts(pool, "train") == {"gsm8k": 63, "math": 63}  # 7 subjects x (10 - 1 with figure code)
    assert _split_counts(pool, "test") == {"gsm8k": 14, "math": 14}  # 7 x (3 - 1)
    everything = pool.texts_train + pool.texts_test
    assert not any("[asy]" in t for t in everything) and max(len(t) for t in everything) <= 1200
    assert all(" test " in t for t in pool.texts_test)  # native splits
    _disjoint(pool)


@pytest.fixture
def processbench(tmp_path: Path) -> dict[str, Path]:
    """Qwen/ProcessBench: four json splits named by the card; 3 solutions per problem, first error index or -1."""
    rng = np.random.default_rng(9)
    folder = tmp_path / "ProcessBench"
    subsets = ("gsm8k", "math", "olympiadbench", "omnimath")
    _readme(folder, {"default": {s: f"{s}.json" for s in subsets}})
    for subset in subsets:
        rows = []
        for p in range(15):
            problem = f"{subset} problem {p}: {_words(rng, 8)}"
            for g in range(3):
                steps = [f"step {k} of solution {g}: {_words(rng, 5)}" for k in range(int(rng.integers(3, 7)))]
                first_error = -1 if rng.random() < 0.4 else int(rng.integers(0, len(steps)))
                rows.append({"id": f"{subset}-{p}-{g}", "generator": "m", "problem": problem, "steps": steps,
                             "final_answer_correct": first_error == -1, "label": first_error})
        (folder / f"{subset}.json").write_text(json.dumps(rows))
    return {"Qwen/ProcessBench": folder}


def test_math_pools_hold_out_whole_problems(processbench, cache):
    answer = hub_tasks.build_math_answer(seed=0, sources=processbench, cache_dir=cache)
    step = hub_tasks.build_math_step(seed=0, sources=processbench, cache_dir=cache)
    assert answer.evaluated == ("wrong",) and step.evaluated == ("error",)
    for pool in (answer, step):
        assert not set(pool.groups_train) & set(pool.groups_test)  # no problem on both sides
        _disjoint(pool)
    n_test_problems = len(set(answer.groups_test))
    assert 0.1 < n_test_problems / 60 < 0.3
    assert len(answer.texts_train) + len(answer.texts_test) == 180  # natural ratio: every solution kept
    counts = {k: sum(_split_counts(step, s)[k] for s in ("train", "test")) for k in step.classes}
    assert counts["correct"] <= 2 * counts["error"] and counts["error"] == step.counts["erroneous_steps"]
    assert all(t.startswith(("gsm8k problem", "math problem", "olympiadbench problem", "omnimath problem"))
               for t in step.texts_train)


def test_the_catalogue_names_every_hub_builder():
    from lib.kstar import catalog

    assert catalog.HUB_TASK_NAMES == tuple(hub_tasks.HUB_TASK_DEFINITIONS)
    assert not set(catalog.HUB_TASK_NAMES) & set(catalog.TASKS)
