"""Models from the Hugging Face hub: offline by default (``HF_HUB_OFFLINE=1``), one-line errors for an
id that is not cached, gated or refused; only ``config.json`` is fetched to check a model before compute."""

from __future__ import annotations

import os
from pathlib import Path

from lib.models.registry import OFFLINE_DEFAULTS, ModelUnavailableError


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "1") not in ("0", "false", "False")


#: Hub id prefixes of gated model families (Llama, Gemma, Mistral): a download needs the licence accepted and a token.
GATED_PREFIXES: tuple[str, ...] = ("meta-llama/", "google/gemma", "mistralai/")


def _gated_hint(model_id: str) -> str:
    if not model_id.startswith(GATED_PREFIXES):
        return ""
    return (f"; {model_id} is gated: accept its licence on its hub page and set HF_TOKEN (or run `hf auth login`) "
            f"for that account")


def hub_unavailable(model_id: str, error: Exception | None = None) -> ModelUnavailableError:
    """Why ``model_id`` cannot be read: the hub is off and there is no local copy, or the hub refused it."""
    if not hub_offline():
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


def hub_folder(model_id: str) -> Path:
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(model_id, local_files_only=hub_offline(),
                                      allow_patterns=["*.json", "*.safetensors", "*.txt", "*.model", "*.jinja"]))
    except (LocalEntryNotFoundError, OSError) as error:
        raise hub_unavailable(model_id, error) from error


def hub_config_file(model_id: str) -> Path:
    """A hub model's ``config.json`` alone (local copy, or downloaded when the hub is on): never its weights."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    try:
        return Path(hf_hub_download(model_id, "config.json", local_files_only=hub_offline()))
    except (EntryNotFoundError, OSError) as error:
        raise hub_unavailable(model_id, error) from error
