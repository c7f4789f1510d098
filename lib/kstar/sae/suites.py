"""Released SAE suites on disk (paper 002, App. A.1.10, "Models."): which file of a suite holds a block's SAE, and
block → SAE read from those files by :func:`lib.kstar.sae.sae.load`.

K06's parameter ``sae_suites`` names, per model, the suite's layout and where the release lies: a folder holding it
as its hub repository lays it out, or the hub id of a release in the local hub cache (never downloaded here). A
suite's layer L is the residual stream after block L, which is the paper's block L (A.1.2, "Layer convention": the
suites "use the same layer naming"; :func:`suite_layer`). d_model comes from the model's ``config.json``.

Layouts (:data:`LAYOUTS`; L the layer):

- ``gemma-scope``, Gemma Scope (google/gemma-scope-9b-pt-res, -9b-it-res): ``layer_{L}/width_16k/average_l0_{N}/
  params.npz`` with W_enc (d × d_sae), W_dec, b_enc, b_dec and a threshold per feature; JumpReLU. Of a layer's L0
  folders the one whose N is closest to 70 ("the 16384-feature Gemma Scope release whose average number of active
  features is closest to 70"; a tie goes to the smaller N, a choice).
- ``gemma-scope-2``, Gemma Scope 2 (google/gemma-scope-2-{size}-{pt,it}): ``resid_post/layer_{L}_width_16k_l0_medium/
  params.safetensors``, else the same under ``resid_post_all/`` (w_enc, w_dec, b_enc, b_dec, threshold; JumpReLU;
  "the 16384-feature medium-sparsity tier").
- ``llama-scope``, Llama Scope (fnlp/Llama3_1-8B-Base-LXR-8x, 32768 features): ``*-L{L}R-8x/checkpoints/
  final.safetensors`` (encoder and decoder in torch layout) beside ``*-L{L}R-8x/hyperparams.json``, whose shared
  ``jump_relu_threshold`` is θ and whose dataset-level input norm ``dataset_average_activation_norm.in`` gives the
  input scale √d / norm; scale and decoder norms are folded into the encoder (A.1.10, :func:`lib.kstar.sae.sae.fold`);
  JumpReLU.
- ``qwen-scope``, Qwen-Scope (Qwen/SAE-Res-Qwen3-8B-Base-W64K-L0_50, 65536 features): ``layer{L}.sae.pt``, a torch
  dict of W_enc (d_sae × d), W_dec (d × d_sae), b_enc and b_dec read on the raw residual; TopK, k = 50.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from lib import paths
from lib.models import architecture, loading

if TYPE_CHECKING:
    from lib.kstar.sae.sae import SAE

PARAMETER = "sae_suites"  #: the K06 parameter that names the suites
#: Layout → the file of layer L under the suite's folder, as messages show it.
LAYOUTS: dict[str, str] = {
    "gemma-scope": "layer_{L}/width_16k/average_l0_{N}/params.npz",
    "gemma-scope-2": "resid_post[_all]/layer_{L}_width_16k_l0_medium/params.safetensors",
    "llama-scope": "*-L{L}R-8x/checkpoints/final.safetensors with *-L{L}R-8x/hyperparams.json",
    "qwen-scope": "layer{L}.sae.pt",
}
#: Layout → its encoder (A.1.10: JumpReLU for the Gemma suites and Llama Scope, TopK for Qwen-Scope).
KIND = {"gemma-scope": "jumprelu", "gemma-scope-2": "jumprelu", "llama-scope": "jumprelu", "qwen-scope": "topk"}
GEMMA_SCOPE_L0 = 70  #: A.1.10: the Gemma Scope release whose average number of active features is closest to 70
_ENTRY = f"[model, layout, folder] with layout one of {', '.join(LAYOUTS)}"


@dataclass(frozen=True)
class Suite:
    """One model's released suite: its layout (:data:`LAYOUTS`) and where the release lies (folder or hub id)."""

    model: str
    layout: str
    source: str

    def words(self) -> str:
        """The suite as messages and the notebook name it."""
        return f"the {self.layout} suite of {self.model!r} ({self.source})"


def by_model(entries: Sequence[Sequence[str]], models: Sequence[str]) -> dict[str, Suite]:
    """Model → its suite, from ``sae_suites`` entries [model, layout, folder]; names only, nothing is read.

    ValueError in one line naming the parameter, the entry and what is allowed for an entry that is not three
    strings, a model that is not one of ``models`` or has a suite already, or a layout not in :data:`LAYOUTS`.
    """
    suites: dict[str, Suite] = {}
    for entry in entries:
        where = f"parameter {PARAMETER!r} entry {list(entry)!r}"
        if len(entry) != 3 or not all(isinstance(part, str) and part for part in entry):
            raise ValueError(f"{where}: allowed: {_ENTRY}")
        model, layout, source = entry
        if model not in models:
            raise ValueError(f"{where}: {model!r} is not one of models; allowed: {', '.join(map(repr, models))}")
        if model in suites:
            raise ValueError(f"{where}: {model!r} has a suite already; allowed: one suite per model")
        if layout not in LAYOUTS:
            raise ValueError(f"{where}: unknown layout {layout!r}; allowed: {', '.join(LAYOUTS)}")
        suites[model] = Suite(model, layout, source)
    return suites


def suite_layer(block: int) -> int:
    """The suite's layer of paper 002's block ℓ: both name the residual stream after block ℓ (A.1.2; the extraction
    reads it at hidden-state index ℓ + 1, :func:`lib.models.architecture.hidden_state_index`), so the same number."""
    return int(block)


def folder(suite: Suite) -> Path:
    """The suite's folder: ``source`` as a folder (relative to the working directory, else to the repository), else
    the snapshot of hub id ``source`` in the local hub cache; ValueError in one line naming the parameter otherwise."""
    for path in (Path(suite.source).expanduser(), paths.REPO_ROOT / suite.source):
        if path.is_dir():
            return path
    if re.fullmatch(r"[\w.-]+/[\w.-]+", suite.source):
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

        try:
            return Path(snapshot_download(suite.source, local_files_only=True))
        except (LocalEntryNotFoundError, HFValidationError, OSError):
            pass
    raise ValueError(f"parameter {PARAMETER!r}: {suite.words()} is neither a folder nor a hub id in the local hub "
                     f"cache; allowed: the folder of the downloaded release, laid out as released "
                     f"({LAYOUTS[suite.layout]} under it), or its hub id once it is in the hub cache")


def _l0(path: Path) -> int | None:
    """N of a Gemma Scope ``average_l0_{N}`` folder holding ``path``; None for another name."""
    match = re.fullmatch(r"average_l0_(\d+)", path.parent.name)
    return int(match.group(1)) if match else None


def _candidates(layout: str, root: Path, layer: int) -> list[Path]:
    """The files under ``root`` that hold layer ``layer``'s SAE in ``layout``, the one to read first."""
    if layout == "gemma-scope":
        found = [p for p in root.glob(f"layer_{layer}/width_16k/average_l0_*/params.npz") if _l0(p) is not None]
        return sorted(found, key=lambda p: (abs(_l0(p) - GEMMA_SCOPE_L0), _l0(p)))
    if layout == "gemma-scope-2":
        name = f"layer_{layer}_width_16k_l0_medium/params.safetensors"
        return [root / sub / name for sub in ("resid_post", "resid_post_all") if (root / sub / name).is_file()]
    if layout == "llama-scope":
        return [p for p in sorted(root.glob(f"*-L{layer}R-8x/checkpoints/final.safetensors"))
                if (p.parent.parent / "hyperparams.json").is_file()]
    return [p for p in (root / f"layer{layer}.sae.pt",) if p.is_file()]


def files(suite: Suite, blocks: Sequence[int]) -> dict[int, Path]:
    """Block → the file of its SAE in the suite (file names only, nothing read): the check before any compute.

    ValueError in one line naming the parameter, the suite, the first block without a file and the blocks of the
    model that have one.
    """
    root = folder(suite)
    found = {}
    for block in blocks:
        candidates = _candidates(suite.layout, root, suite_layer(block))
        if not candidates:
            held = [b for b in range(architecture.blocks(suite.model))
                    if _candidates(suite.layout, root, suite_layer(b))]
            raise ValueError(
                f"parameter {PARAMETER!r}: {suite.words()} has no SAE for block {block} (no "
                f"{LAYOUTS[suite.layout].replace('{L}', str(suite_layer(block)))} in {root}); allowed: the blocks "
                f"with a file there ({', '.join(map(str, held)) or 'none'}) in layers, or that layer's file added")
        found[int(block)] = candidates[0]
    return found


def d_model(model: str) -> int:
    """The model's residual width d from its ``config.json`` (a Gemma-3 release nests its text model's)."""
    config = loading.read_json(loading.config_file(model))
    return int(config.get("text_config", {}).get("hidden_size") or config["hidden_size"])


def _llama_scope_facts(path: Path, d: int) -> dict[str, float]:
    """θ and the input scale √d / norm of a Llama Scope SAE, from the ``hyperparams.json`` beside its checkpoints."""
    hyper_file = path.parent.parent / "hyperparams.json"
    hyper = loading.read_json(hyper_file)
    try:
        return {"threshold": float(hyper["jump_relu_threshold"]),
                "input_scale": math.sqrt(d) / float(hyper["dataset_average_activation_norm"]["in"])}
    except (KeyError, TypeError):
        raise ValueError(f"{hyper_file} lacks jump_relu_threshold or dataset_average_activation_norm.in; allowed: "
                         "Llama Scope's hyperparams.json as released") from None


@cache
def load_suite(suite: Suite, blocks: tuple[int, ...]) -> dict[int, SAE]:
    """Block → the suite's SAE of that block (A.1.10), each shape checked against the model's width by
    :func:`lib.kstar.sae.sae.load` (cached per process: K06's cells share one read)."""
    from lib.kstar.sae import sae as saes

    d = d_model(suite.model)
    out = {}
    for block, path in files(suite, blocks).items():
        facts = _llama_scope_facts(path, d) if suite.layout == "llama-scope" else {}
        out[block] = saes.load(path, kind=KIND[suite.layout], d_model=d,
                               fold_decoder_norms=suite.layout == "llama-scope", **facts)
    return out
