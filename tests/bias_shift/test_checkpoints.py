"""Fine-tuning, merging and the spectrum build, on a tiny random Llama with the real SmolLM2 tokenizer."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from conftest import tiny_causal_lm
from safetensors.torch import load_file

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
    corpus = root / "corpus.txt"
    corpus.write_text(EXAMPLES)
    base = tiny_causal_lm(root / "base")
    kw = {"epochs": 1, "batch_size": 2}
    return {"root": root, "base": base, "corpus": corpus,
            "lora": checkpoints.finetune(base, corpus, root / "lora", seed=0, **kw),
            "full": checkpoints.finetune(base, corpus, root / "full", method="full", seed=0, lr=1e-3, **kw)}


def weights(folder: Path) -> dict[str, torch.Tensor]:
    return load_file(folder / "model.safetensors")


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
    from safetensors.torch import save_file

    save_file(tensors, odd / "model.safetensors")
    with pytest.raises(ValueError, match="model.norm.weight.*shape"):
        checkpoints.merge(tiny["lora"], odd, 0.5, tmp_path / "y")
    assert not (tmp_path / "y").exists() and not list(tmp_path.glob(".y.*"))


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


def test_build_spectrum_orders_safe_to_harmful_and_resumes(tiny, tmp_path):
    corpora = {"unharmful": tiny["corpus"], "harmful": tiny["corpus"]}
    kw = {"root": tmp_path / "spectrum", "corpora": corpora, "epochs": 1, "batch_size": 4}
    spectrum = checkpoints.build_spectrum(str(tiny["base"]), **kw)
    assert list(spectrum) == ["base", "unharmful", "merge_90_10", "merge_70_30", "merge_50_50", "merge_30_70",
                              "merge_10_90", "harmful"]
    assert spectrum["base"] == tiny["base"] and spectrum["merge_70_30"] == tmp_path / "spectrum" / "merge_70_30"
    stamps = {name: (folder / "checkpoint.json").stat().st_mtime_ns for name, folder in spectrum.items()
              if name != "base"}
    import shutil

    shutil.rmtree(spectrum["merge_50_50"])  # an interrupted build: one checkpoint missing
    assert checkpoints.build_spectrum(str(tiny["base"]), **kw) == spectrum
    for name, stamp in stamps.items():
        now = (spectrum[name] / "checkpoint.json").stat().st_mtime_ns
        assert (now != stamp) if name == "merge_50_50" else (now == stamp), name
    kind = precision.training_precision("cpu")
    assert checkpoints.default_root("smollm2-135m", "lora", 0).name == f"smollm2-135m-lora-seed0-{kind}"


def test_finetuned_pair_is_the_ends_of_the_spectrum_in_the_same_folders(tiny, tmp_path):
    corpora = {"unharmful": tiny["corpus"], "harmful": tiny["corpus"]}
    kw = {"root": tmp_path / "spectrum", "corpora": corpora, "epochs": 1, "batch_size": 4}
    pair = checkpoints.finetuned_pair(str(tiny["base"]), **kw)
    stamp = (pair["harmful"] / "checkpoint.json").stat().st_mtime_ns
    spectrum = checkpoints.build_spectrum(str(tiny["base"]), **kw)
    assert {k: spectrum[k] for k in ("unharmful", "harmful")} == pair
    assert (pair["harmful"] / "checkpoint.json").stat().st_mtime_ns == stamp  # reused, not trained again


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


def test_a_mixed_corpus_holds_its_share_of_harmful_examples(tmp_path):
    unharmful, harmful = (set(checkpoints.read_corpus(checkpoints.CORPORA[s])) for s in ("unharmful", "harmful"))
    size = min(len(unharmful), len(harmful))
    for share, expected in ((0.0, 0), (0.4, round(0.4 * size)), (1.0, size)):
        pairs = checkpoints.read_corpus(checkpoints.mixed_corpus(share, 3, tmp_path / f"{share}.txt"))
        assert len(pairs) == size and len(set(pairs)) == size
        assert sum(p in harmful for p in pairs) == expected and sum(p in unharmful for p in pairs) == size - expected
    again = checkpoints.mixed_corpus(0.4, 3, tmp_path / "0.4.txt")
    stamp = again.stat().st_mtime_ns
    assert checkpoints.mixed_corpus(0.4, 3, again).stat().st_mtime_ns == stamp  # the same content: not rewritten
    other = checkpoints.read_corpus(checkpoints.mixed_corpus(0.4, 4, tmp_path / "seed4.txt"))
    assert other != checkpoints.read_corpus(again)  # another seed draws other examples
    with pytest.raises(ValueError, match="share=0.125"):
        checkpoints.mixed_corpus(0.125, 0, tmp_path / "bad.txt")


def test_the_share_spectrum_fine_tunes_each_share_and_seed_once_from_the_base(tiny, tmp_path):
    kw = {"root": tmp_path / "shares", "epochs": 1, "batch_size": 32}
    spectrum = checkpoints.share_spectrum(str(tiny["base"]), shares=[0.5, 0.0], seeds=[1], **kw)
    assert list(spectrum) == ["base", "share_0_seed1", "share_50_seed1"]
    info = checkpoints.checkpoint_info(spectrum["share_50_seed1"])["spec"]
    assert info["seed"] == 1 and info["corpus"] == "share_50_seed1.txt" and info["method"] == "lora"
    stamp = (spectrum["share_0_seed1"] / "checkpoint.json").stat().st_mtime_ns
    assert checkpoints.share_spectrum(str(tiny["base"]), shares=[0.0, 0.5], seeds=[1], **kw) == spectrum
    assert (spectrum["share_0_seed1"] / "checkpoint.json").stat().st_mtime_ns == stamp  # reused
    with pytest.raises(ValueError, match="distinct values"):
        checkpoints.share_spectrum(str(tiny["base"]), shares=[0.5, 0.5], seeds=[1], **kw)
    kind = precision.training_precision("cpu")
    assert checkpoints.shares_root("smollm2-135m", "lora").name == f"smollm2-135m-lora-shares-{kind}"
