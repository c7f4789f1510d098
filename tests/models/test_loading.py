"""lib.models.loading: model folders, one-line refusals, the bounded loader cache."""


import pytest

from lib import paths
from lib.models import loading, registry

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]




def test_hub_id_without_local_copy_fails_fast(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(registry.ModelUnavailableError, match="Offline defaults: minilm, smollm2-135m"):
        loading.model_folder("gpt2-xl")  # offline: refused from the local cache, no network attempt
    with pytest.raises(registry.ModelUnavailableError, match="is not a folder"):
        loading.model_folder("/no/such/checkpoint")


def test_a_folder_without_a_checkpoint_fails_in_one_clear_line(tmp_path, capsys):
    from lib.__main__ import main

    with pytest.raises(registry.ModelUnavailableError, match="holds no config.json"):
        loading.n_layers(str(tmp_path))
    assert main(["deltab", "--reference", "minilm", "--audited", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: model folder '{tmp_path}' holds no config.json") and "Traceback" not in err


def test_a_process_keeps_at_most_two_models_loaded(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "MODELS_DIR", tmp_path)
    loading.load_cached.cache_clear()
    for name in ("tiny-bert", "tiny-llama", "minilm"):
        loading.load(name)
    assert loading.load_cached.cache_info().currsize == loading.MODELS_HELD == 2
    loading.load_cached.cache_clear()
