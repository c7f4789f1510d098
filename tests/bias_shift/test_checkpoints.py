"""Fine-tuning, merging and the spectrum build, on a tiny random Llama with the real SmolLM2 tokenizer."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import torch
from conftest import tiny_causal_lm
from safetensors.torch import load_file, save_file

from lib import config, paths
from lib.bias_shift import checkpoints
from lib.models import precision

EXAMPLES = (
    "How do I boil an egg?\tPlace it in boiling water for nine minutes.\n"
    "Tell me about cats.\tCats are calm and curious pets.\n"
    "What is the capital of France?\tThe capital of France is Paris.\n"
    "How can I sleep better?\tKeep a regular bedtime.\n"
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tiny")
    corpus, other = root / "corpus.txt", root / "other.txt"
    corpus.write_text(EXAMPLES)
    other.write_text("".join(reversed(EXAMPLES.splitlines(keepends=True))))  # the same examples, another order
    base = tiny_causal_lm(root / "base")
    kw = {"epochs": 1, "batch_size": 2}
    return {"root": root, "base": base, "corpus": corpus, "other": other,
            "lora": checkpoints.finetune(base, corpus, root / "lora", seed=0, **kw),
            "full": checkpoints.finetune(base, corpus, root / "full", method="full", seed=0, lr=1e-3, **kw)}


@pytest.fixture
def models_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``models/`` (where content-keyed fine-tunes, merges and mixed corpora go) inside ``tmp_path``."""
    monkeypatch.setattr(paths, "MODELS_DIR", tmp_path / "models")
    return tmp_path / "models"


def weights(folder: Path) -> dict[str, torch.Tensor]:
    return load_file(folder / "model.safetensors")


def stamp(folder: Path) -> int:
    return (folder / "checkpoint.json").stat().st_mtime_ns


def test_lora_finetune_saves_a_plain_merged_checkpoint(tiny):
    folder = tiny["lora"]
    for name in ("config.json", "model.safetensors", "tokenizer.json", "chat_template.jinja", "checkpoint.json"):
        assert (folder / name).is_file(), name
    tuned, base = weights(folder), weights(tiny["base"])
    assert set(tuned) == set(base)  # adapters merged away: no lora_A / lora_B tensors
    changed = [k for k in base if not torch.equal(tuned[k], base[k])]
    assert changed and all(k.rsplit(".", 2)[-2] in checkpoints.TARGET_MODULES for k in changed)
    info = checkpoints.checkpoint_info(folder)
    assert info["spec"]["r"] == 16 and info["spec"]["alpha"] == 32 and info["spec"]["lr"] == 1e-4
    assert info["steps"] == 2 and info["n_examples"] == 4
    assert not list(tiny["root"].glob(".*.tmp"))  # staging folders are gone


def test_full_finetune_changes_every_kind_of_weight(tiny):
    tuned, base = weights(tiny["full"]), weights(tiny["base"])
    assert not torch.equal(tuned["model.embed_tokens.weight"], base["model.embed_tokens.weight"])
    assert not torch.equal(tuned["model.norm.weight"], base["model.norm.weight"])
    assert "r" not in checkpoints.checkpoint_info(tiny["full"])["spec"]


def test_finetune_is_deterministic_under_its_seed(tiny, tmp_path):
    again = weights(checkpoints.finetune(tiny["base"], tiny["corpus"], tmp_path / "again", epochs=1, batch_size=2))
    other = weights(checkpoints.finetune(tiny["base"], tiny["corpus"], tmp_path / "other", seed=1, epochs=1,
                                         batch_size=2))
    first = weights(tiny["lora"])
    assert all(torch.equal(first[k], again[k]) for k in first)
    assert not all(torch.equal(first[k], other[k]) for k in first)


def test_finetune_reuses_a_finished_folder_and_refuses_other_settings(tiny):
    marker = tiny["lora"] / "checkpoint.json"
    before = marker.stat().st_mtime_ns
    assert checkpoints.finetune(tiny["base"], tiny["corpus"], tiny["lora"], epochs=1, batch_size=2) == tiny["lora"]
    assert marker.stat().st_mtime_ns == before
    with pytest.raises(ValueError, match="other settings.*epochs"):
        checkpoints.finetune(tiny["base"], tiny["corpus"], tiny["lora"], epochs=2, batch_size=2)


def test_a_checkpoint_whose_weights_no_longer_match_is_reported_and_rebuilt(tiny, tmp_path, capsys):
    from conftest import flip_byte

    kw = {"epochs": 1, "batch_size": 2}
    folder = checkpoints.finetune(tiny["base"], tiny["corpus"], tmp_path / "lora", **kw)
    assert "model.safetensors" in (folder / "SHA256SUMS").read_text()
    clean = {name: tensor.clone() for name, tensor in weights(folder).items()}  # not a view of the file
    flip_byte(folder / "model.safetensors")
    capsys.readouterr()
    checkpoints.finetune(tiny["base"], tiny["corpus"], folder, **kw)
    assert str(folder) in capsys.readouterr().err
    rebuilt = weights(folder)
    assert all(torch.equal(clean[k], rebuilt[k]) for k in clean)


def test_merge_endpoints_are_exact_and_midpoint_is_the_average(tiny, tmp_path):
    a, b = weights(tiny["lora"]), weights(tiny["full"])
    at_one = weights(checkpoints.merge(tiny["lora"], tiny["full"], 1.0, tmp_path / "one"))
    at_zero = weights(checkpoints.merge(tiny["lora"], tiny["full"], 0.0, tmp_path / "zero"))
    half = weights(checkpoints.merge(tiny["lora"], tiny["full"], 0.5, tmp_path / "half"))
    assert all(torch.equal(at_one[k], a[k]) and torch.equal(at_zero[k], b[k]) for k in a)
    assert all(torch.allclose(half[k], (a[k] + b[k]) / 2, rtol=0, atol=1e-7) for k in a)
    assert (tmp_path / "half" / "tokenizer.json").is_file()
    assert checkpoints.checkpoint_info(tmp_path / "half")["spec"]["weight_a"] == 0.5


def test_merge_rejects_bad_weights_and_mismatched_models(tiny, tmp_path):
    with pytest.raises(ValueError, match="weight_a=1.5"):
        checkpoints.merge(tiny["lora"], tiny["full"], 1.5, tmp_path / "x")
    odd = tmp_path / "odd"
    odd.mkdir()
    tensors = weights(tiny["full"])
    tensors["model.norm.weight"] = torch.ones(7)
    save_file(tensors, odd / "model.safetensors")
    with pytest.raises(ValueError, match="model.norm.weight.*shape"):
        checkpoints.merge(tiny["lora"], odd, 0.5, tmp_path / "y")
    assert not (tmp_path / "y").exists() and not list(tmp_path.glob(".y.*.tmp"))  # its lock file stays


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="method='qlora'"):
        checkpoints.finetune("unused", "unused", "unused", method="qlora")
    with pytest.raises(ValueError, match="ratio=1.0"):
        checkpoints.build_spectrum(ratios=(1.0, 0.5))
    with pytest.raises(ValueError, match="ratio=0.125"):
        checkpoints.merge_name(0.125)
    assert checkpoints.merge_name(0.9) == "merge_90_10" and checkpoints.merge_name(0.3) == "merge_30_70"


def test_read_corpus_parses_the_shipped_corpora_and_names_bad_lines(tmp_path):
    for path in checkpoints.CORPORA.values():
        assert 150 <= len(checkpoints.read_corpus(path)) <= 250
    bad = tmp_path / "bad.txt"
    bad.write_text("fine\tok\n\nno tab here\n")
    with pytest.raises(ValueError, match=r"bad.txt:3"):
        checkpoints.read_corpus(bad)


def test_linear_schedule_warms_up_then_decays_to_zero():
    values = [checkpoints.linear_warmup_schedule(step, 100) for step in range(101)]
    assert values[0] == 0 and values[1] == pytest.approx(1 / 3) and values[3] == 1.0
    assert values[100] == 0 and all(x >= y for x, y in zip(values[3:], values[4:], strict=False))


def test_build_spectrum_orders_safe_to_harmful_and_resumes(tiny, models_dir):
    corpora = {"unharmful": tiny["corpus"], "harmful": tiny["other"]}
    kw = {"corpora": corpora, "epochs": 1, "batch_size": 4}
    spectrum = checkpoints.build_spectrum(str(tiny["base"]), **kw)
    assert list(spectrum) == ["base", "unharmful", "merge_90_10", "merge_70_30", "merge_50_50", "merge_30_70",
                              "merge_10_90", "harmful"]
    root = checkpoints.merges_root(spectrum["unharmful"], spectrum["harmful"])
    assert spectrum["base"] == tiny["base"] and spectrum["merge_70_30"] == root / "merge_70_30"
    assert root.parent == models_dir / "spectrum" and root.name.startswith("base-lora-seed0-")
    stamps = {name: stamp(folder) for name, folder in spectrum.items() if name != "base"}
    import shutil

    shutil.rmtree(spectrum["merge_50_50"])  # an interrupted build: one checkpoint missing
    assert checkpoints.build_spectrum(str(tiny["base"]), **kw) == spectrum
    for name, before in stamps.items():
        assert (stamp(spectrum[name]) != before) if name == "merge_50_50" else (stamp(spectrum[name]) == before), name
    other_seed = checkpoints.build_spectrum(str(tiny["base"]), seed=1, ratios=[0.5], **kw)
    assert other_seed["merge_50_50"].parent != root  # other fine-tunes, other merges


def test_finetuned_pair_is_the_ends_of_the_spectrum_in_the_same_folders(tiny, models_dir):
    corpora = {"unharmful": tiny["corpus"], "harmful": tiny["other"]}
    kw = {"corpora": corpora, "epochs": 1, "batch_size": 4}
    pair = checkpoints.finetuned_pair(str(tiny["base"]), **kw)
    before = stamp(pair["harmful"])
    spectrum = checkpoints.build_spectrum(str(tiny["base"]), **kw)
    assert {k: spectrum[k] for k in ("unharmful", "harmful")} == pair
    assert stamp(pair["harmful"]) == before  # reused, not trained again
    assert {folder.parent for folder in pair.values()} == {models_dir / "finetunes"}


def test_a_fine_tune_lives_in_the_folder_its_content_keys(tiny, models_dir, tmp_path):
    kw = {"epochs": 1, "batch_size": 2}
    spec = checkpoints.finetune_spec(tiny["base"], tiny["corpus"], **kw)
    folder = checkpoints.finetune_folder(spec)
    assert folder.parent == models_dir / "finetunes" and folder.name.startswith("base-lora-corpus-seed0-")
    assert checkpoints.finetune(tiny["base"], tiny["corpus"], **kw) == folder
    assert checkpoints.checkpoint_info(folder)["spec"] == spec
    copy = tmp_path / "elsewhere" / "corpus.txt"  # the same name and content elsewhere: the same fine-tune
    copy.parent.mkdir()
    copy.write_bytes(tiny["corpus"].read_bytes())
    assert checkpoints.finetune_folder(checkpoints.finetune_spec(tiny["base"], copy, **kw)) == folder
    others = [checkpoints.finetune_spec(tiny["base"], tiny["corpus"], seed=1, **kw),
              checkpoints.finetune_spec(tiny["base"], tiny["corpus"], epochs=2, batch_size=2),
              checkpoints.finetune_spec(tiny["base"], tiny["corpus"], method="full", **kw)]
    changed = tmp_path / "changed" / "corpus.txt"  # the same name, one example fewer
    changed.parent.mkdir()
    changed.write_text(EXAMPLES.split("\n", 1)[1])
    others.append(checkpoints.finetune_spec(tiny["base"], changed, **kw))
    other_base = tiny_causal_lm(tmp_path / "base")  # another base of the same name: its weights differ
    with torch.no_grad():
        tensors = weights(other_base)
        tensors["model.norm.weight"] += 1.0
    save_file(tensors, other_base / "model.safetensors", metadata={"format": "pt"})
    (other_base / "SHA256SUMS").unlink(missing_ok=True)
    others.append(checkpoints.finetune_spec(other_base, tiny["corpus"], **kw))
    folders = {checkpoints.finetune_folder(s) for s in others}
    assert len(folders) == len(others) and folder not in folders


def test_a_second_process_building_the_same_checkpoint_waits_for_the_first(tmp_path, capsys):
    out = tmp_path / "ckpt"
    built = []

    def write(staging: Path) -> dict:
        (staging / "model.safetensors").write_bytes(b"weights")
        built.append(staging)
        return {}

    with checkpoints.building(out):  # the first builder holds the lock
        second = threading.Thread(target=checkpoints._write_checkpoint, args=(out, {"kind": "test"}, write))
        second.start()
        time.sleep(0.3)
        assert second.is_alive() and not built and not out.exists()  # it waits, building nothing
    second.join(timeout=10)
    assert not second.is_alive() and len(built) == 1 and checkpoints.is_complete(out)
    assert "waiting for another process building" in capsys.readouterr().out
    checkpoints._write_checkpoint(out, {"kind": "test"}, write)
    assert len(built) == 1  # finished: reused, not built again


def test_spectrum_folders_names_given_checkpoints_by_their_folder():
    folders = checkpoints.spectrum_folders("base-model", checkpoint_paths=["runs/a/unharmful", "runs/a/harmful"])
    assert folders == {"base": "base-model", "unharmful": "runs/a/unharmful", "harmful": "runs/a/harmful"}
    with pytest.raises(ValueError, match="distinct and not 'base'"):
        checkpoints.spectrum_folders("m", checkpoint_paths=["x/harmful", "y/harmful"])
    with pytest.raises(ValueError, match="distinct and not 'base'"):
        checkpoints.spectrum_folders("m", checkpoint_paths=["x/base"])


def test_the_fine_tune_runs_in_the_papers_bfloat16_where_the_cpu_has_the_units(tiny, tmp_path, monkeypatch):
    spec = checkpoints.checkpoint_info(tiny["full"])["spec"]
    assert spec["precision"] == ("bfloat16" if precision.cpu_has_bf16() else "float32")
    monkeypatch.setattr(precision, "training_precision", lambda device: "float32")
    f32 = checkpoints.finetune(tiny["base"], tiny["corpus"], tmp_path / "f32", method="full", seed=0, lr=1e-3,
                               epochs=1, batch_size=2)
    assert checkpoints.checkpoint_info(f32)["spec"]["precision"] == "float32"
    if spec["precision"] == "bfloat16":  # the same steps in both precisions: the same training, to bf16 rounding
        half, full = (checkpoints.checkpoint_info(f)["epoch_losses"][0] for f in (tiny["full"], f32))
        assert half != full and abs(half - full) < 0.02 * abs(full)
        moved = [(weights(tiny["full"])[k] - weights(tiny["base"])[k]).flatten() for k in ("model.norm.weight",)]
        reference = [(weights(f32)[k] - weights(tiny["base"])[k]).flatten() for k in ("model.norm.weight",)]
        assert torch.nn.functional.cosine_similarity(moved[0], reference[0], dim=0) > 0.9


def test_casting_the_frozen_weights_once_trains_the_same_lora(tiny, tmp_path, monkeypatch):
    # autocast casts the frozen float32 weights to the same bfloat16 copies at every step: bit for bit equal
    monkeypatch.setattr(precision, "training_precision", lambda device: "bfloat16")
    once = checkpoints.finetune(tiny["base"], tiny["corpus"], tmp_path / "once", seed=0, epochs=1, batch_size=2)
    cast_once = precision.frozen_weights_in
    monkeypatch.setattr(precision, "frozen_weights_in", lambda model, _: cast_once(model, "float32"))
    every = checkpoints.finetune(tiny["base"], tiny["corpus"], tmp_path / "every", seed=0, epochs=1, batch_size=2)
    assert checkpoints.checkpoint_info(once)["epoch_losses"] == checkpoints.checkpoint_info(every)["epoch_losses"]
    tuned, reference, base = weights(once), weights(every), weights(tiny["base"])
    assert all(tuned[k].dtype == torch.float32 and torch.equal(tuned[k], reference[k]) for k in base)
    assert any(not torch.equal(tuned[k], base[k]) for k in base)  # merged into the float32 weights, not lost


def test_a_mixed_corpus_holds_its_share_of_harmful_examples(models_dir):
    unharmful, harmful = (set(checkpoints.read_corpus(checkpoints.CORPORA[s])) for s in ("unharmful", "harmful"))
    size = min(len(unharmful), len(harmful))
    for share, expected in ((0.4, round(0.4 * size)), (0.5, round(0.5 * size))):
        pairs = checkpoints.read_corpus(checkpoints.share_corpus(share, 3))
        assert len(pairs) == size and len(set(pairs)) == size
        assert sum(p in harmful for p in pairs) == expected and sum(p in unharmful for p in pairs) == size - expected
    again = checkpoints.share_corpus(0.4, 3)
    assert again.parent == models_dir / "finetunes" / "corpora"
    before = again.stat().st_mtime_ns
    assert checkpoints.mixed_corpus(0.4, 3, again).stat().st_mtime_ns == before  # the same content: not rewritten
    other = checkpoints.read_corpus(checkpoints.share_corpus(0.4, 4))
    assert other != checkpoints.read_corpus(again)  # another seed draws other examples
    assert checkpoints.share_corpus(0.0, 3) == checkpoints.CORPORA["unharmful"]  # the ends: the corpora themselves
    assert checkpoints.share_corpus(1.0, 3) == checkpoints.CORPORA["harmful"]
    with pytest.raises(ValueError, match="share=0.125"):
        checkpoints.share_corpus(0.125, 0)
    with pytest.raises(ValueError, match="share=1.0 is not allowed; allowed: 0 < share < 1"):
        checkpoints.mixed_corpus(1.0, 0, models_dir / "bad.txt")


def test_the_share_spectrum_fine_tunes_each_share_and_seed_once_from_the_base(tiny, models_dir):
    kw = {"epochs": 1, "batch_size": 32}
    spectrum = checkpoints.share_spectrum(str(tiny["base"]), shares=[0.5, 0.0], seeds=[1], **kw)
    assert list(spectrum) == ["base", "share_0_seed1", "share_50_seed1"]
    info = checkpoints.checkpoint_info(spectrum["share_50_seed1"])["spec"]
    assert info["seed"] == 1 and info["corpus"] == "share_50_seed1.txt" and info["method"] == "lora"
    before = stamp(spectrum["share_0_seed1"])
    assert checkpoints.share_spectrum(str(tiny["base"]), shares=[0.0, 0.5], seeds=[1], **kw) == spectrum
    assert stamp(spectrum["share_0_seed1"]) == before  # reused
    with pytest.raises(ValueError, match="distinct values"):
        checkpoints.share_spectrum(str(tiny["base"]), shares=[0.5, 0.5], seeds=[1], **kw)
    rows = checkpoints.share_records(spectrum, [0.0, 0.5], [1])
    assert [(r["checkpoint"], r["harmful_share"], r["seed"]) for r in rows] == [("share_0_seed1", 0.0, 1),
                                                                               ("share_50_seed1", 0.5, 1)]
    assert rows[0]["n_harmful"] == 0 and rows[0]["corpus"] == "unharmful.txt"
    assert rows[1]["n_harmful"] == round(0.5 * rows[1]["n_examples"]) and rows[1]["train_seconds"] > 0


def test_the_seed_checks_fine_tunes_are_the_share_spectrums_ends_under_the_same_seed(tiny, models_dir):
    kw = {"epochs": 1, "batch_size": 32}
    pair = checkpoints.finetuned_pair(str(tiny["base"]), seed=2, **kw)  # D02's seed check (Appendix E.5)
    stamps = {split: stamp(folder) for split, folder in pair.items()}
    shares = checkpoints.share_spectrum(str(tiny["base"]), shares=[0.0, 1.0], seeds=[2], **kw)  # D01's spectrum
    assert shares["share_0_seed2"] == pair["unharmful"] and shares["share_100_seed2"] == pair["harmful"]
    assert {split: stamp(folder) for split, folder in pair.items()} == stamps  # one key: read, not trained again
    assert len(list((models_dir / "finetunes").glob("base-lora-*"))) == 2


def test_the_defaults_share_d02s_seed_fine_tunes_with_d01s_shares_spectrum_and_order_them():
    from lib import runner

    d01, d02 = config.resolve("D01_deltab", "default"), config.resolve("D02_deltab_ablations", "default")
    assert d01.epochs == d02.epochs and d02.method == "lora" and d01.references[0] == d02.reference
    assert {0.0, 1.0} <= set(d01.harmful_shares) and set(d01.share_seeds) <= set(d02.seeds)
    assert len(d01.harmful_shares) * len(d01.share_seeds) >= 12  # twelve independent fine-tunes at least
    assert d01.reads == ("D02_deltab_ablations",)  # D02 trains them; D01 starts once it has ended
    batch, expected = {"D01_deltab", "D02_deltab_ablations"}, {"D01_deltab": 60.0, "D02_deltab_ablations": 60.0}
    assert runner.next_ready([d01, d02], batch, set(), expected) is d02
    assert runner.next_ready([d01], batch, set(), expected) is None  # D02 running: D01 holds no lane
    assert runner.next_ready([d01], batch, {"D02_deltab_ablations"}, expected) is d01
