"""A model's local folder, its weights checked, and the one loader of models and tokenizers (safetensors only,
no remote code); the weights hash that keys every cache."""

from __future__ import annotations

import hashlib
import json
import shutil
from functools import cache, lru_cache
from pathlib import Path

from lib import files, paths
from lib.models.converters import CONVERTERS, minilm_folder
from lib.models.hub import hub_config_file, hub_folder
from lib.models.registry import REGISTRY, ModelSpec, ModelUnavailableError

#: The weight files a local checkpoint folder must hold (only safetensors load): one file, or an index of shards.
WEIGHT_FILES: tuple[str, ...] = ("model.safetensors", "model.safetensors.index.json")


def _check_weights(folder: Path) -> None:
    """Raise :class:`ModelUnavailableError` in one line when ``folder`` has no safetensors weights (or lacks a shard
    its index lists); the files are looked for, never read beyond the index."""
    if (folder / WEIGHT_FILES[0]).is_file():
        return
    index = folder / WEIGHT_FILES[1]
    if not index.is_file():
        other = sorted(p.name for p in folder.glob("*.bin")) + sorted(p.name for p in folder.glob("*.safetensors"))
        found = f"; found only {', '.join(other[:3])}" if other else ""
        raise ModelUnavailableError(
            f"model folder {str(folder)!r} has config.json but no weights: expected {' or '.join(WEIGHT_FILES)} "
            f"(with its shards){found}; save the checkpoint with save_pretrained(folder) (safetensors, the default)"
        )
    shards = sorted(set(read_json(index).get("weight_map", {}).values()))
    missing = [shard for shard in shards if not (folder / shard).is_file()]
    if missing:
        raise ModelUnavailableError(f"model folder {str(folder)!r} lacks {len(missing)} of the {len(shards)} weight "
                                    f"shards its {WEIGHT_FILES[1]} lists, first {missing[0]!r}; copy the whole folder")


def read_json(path: Path) -> dict:
    """A model's JSON file (``config.json``, a weight index) as a mapping; a broken one raises ValueError in one line
    naming the file and the position of the error."""
    try:
        content = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}; "
                         f"repair or replace the file (save_pretrained writes it)") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not UTF-8 text ({error.reason} at byte {error.start}); replace the file") from None
    if not isinstance(content, dict):
        raise ValueError(f"{path} holds a JSON {type(content).__name__}, not an object of settings; replace the file")
    return content


def model_folder(name: str) -> Path:
    """A local folder with the model's config, tokenizer and safetensors weights.

    ``name`` is a registry name, a hub id, or a local folder. Converts SmolLM2 and Gemma-3-270M (and builds the
    tiny models) on first use, and again when a file of the built folder no longer matches its ``SHA256SUMS``.
    """
    if Path(name).is_dir():
        if not (Path(name) / "config.json").is_file():
            raise ModelUnavailableError(f"model folder {name!r} holds no config.json; a transformers checkpoint "
                                        f"folder holds config.json, a tokenizer and *.safetensors weights")
        _check_weights(Path(name))
        return Path(name)
    if name.startswith((".", "/", "~")) or name.count("/") > 1:
        raise ModelUnavailableError(f"model path {name!r} is not a folder holding a transformers checkpoint")
    spec = REGISTRY.get(name, ModelSpec(name, "hub"))
    if spec.source == "minilm-package":
        return minilm_folder()
    if spec.source in CONVERTERS:
        folder = paths.MODELS_DIR / spec.name
        if not built_intact(folder):
            quiet_weight_bars()
            CONVERTERS[spec.source](folder)
        return folder
    return hub_folder(name)


def built_intact(folder: Path) -> bool:
    """Whether a built model folder matches its ``SHA256SUMS``; a folder that does not (or predates the list)
    is removed for a rebuild, a mismatch reported in one line."""
    intact = files.folder_sums_match(folder, hasher=cached_sha256)
    if intact is False:
        files.report_corrupt(folder, "model folder")
    if not intact:
        shutil.rmtree(folder, ignore_errors=True)
    return bool(intact)


#: Models a process keeps loaded (the least recently used beyond is dropped): a notebook that reads many large
#: models in turn holds two of them, not all.
MODELS_HELD = 2


@cache
def quiet_weight_bars() -> None:
    """Turn off transformers' own progress bars ("Loading weights", "Writing model shards"), once per process:
    every load drew one, an empty box in a notebook's output. The hub's download bars, which the same switch
    turns off, are turned back on when they were on (a download of a large model keeps its bar)."""
    from huggingface_hub.utils import are_progress_bars_disabled, enable_progress_bars
    from transformers.utils import logging

    downloads_shown = not are_progress_bars_disabled()
    logging.disable_progress_bar()
    if downloads_shown:
        enable_progress_bars()


@lru_cache(maxsize=MODELS_HELD)
def load_cached(folder: str, dtype: str):
    import torch
    from transformers import AutoModel, AutoTokenizer

    quiet_weight_bars()
    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=False)
    model = AutoModel.from_pretrained(folder, trust_remote_code=False, use_safetensors=True,
                                      dtype=getattr(torch, dtype)).eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


@cache
def cached_tokenizer(folder: str):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, trust_remote_code=False)


def load(name: str, dtype: str = "float32"):
    """(model, tokenizer) of ``name`` in eval mode, base model without a head (cached per process)."""
    return load_cached(str(model_folder(name)), dtype)


def load_causal_lm(folder: str | Path):
    """The causal LM (with its head) in ``folder`` in float32, from safetensors, no remote code."""
    import torch
    from transformers import AutoModelForCausalLM

    quiet_weight_bars()
    return AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=False, use_safetensors=True,
                                                dtype=torch.float32)


def config_file(name: str) -> Path:
    """The model's ``config.json`` without loading or downloading weights (a hub id fetches that file alone)."""
    is_path = Path(name).is_dir() or name.startswith((".", "/", "~")) or name.count("/") > 1
    if not is_path and REGISTRY.get(name, ModelSpec(name, "hub")).source == "hub":
        return hub_config_file(name)
    return model_folder(name) / "config.json"


def awaiting_conversion(name: str) -> bool:
    """A GGUF release of the registry not converted yet: its ``config.json`` appears only when its first use
    converts it, so checks of its layers wait for that."""
    spec = REGISTRY.get(name)
    return (spec is not None and spec.source.endswith("-gguf")
            and not (paths.MODELS_DIR / name / "config.json").is_file())


def n_layers(name: str) -> int:
    """Transformer layers L of the model (hidden states have L + 1 entries: embeddings first), from its config."""
    config = read_json(config_file(name))
    return int(config.get("num_hidden_layers", config.get("n_layer", 0)))


def weights_hash(name: str) -> str:
    """SHA-256 over the safetensors files of the model (remembered per file size and mtime)."""
    digest = hashlib.sha256()
    for weights in sorted(model_folder(name).glob("*.safetensors")):
        digest.update(cached_sha256(weights).encode())
    return digest.hexdigest()


def cached_sha256(path: Path) -> str:
    """SHA-256 of a file, hashed once per process for each (size, mtime)."""
    stat = Path(path).stat()
    return _file_hash(str(path), stat.st_size, stat.st_mtime_ns)


@cache
def _file_hash(path: str, size: int, mtime_ns: int) -> str:
    return files.sha256_file(Path(path))
