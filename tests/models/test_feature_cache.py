"""lib.models.feature_cache: cached layers read back, only requested layers stored, a flipped byte recomputed."""


import numpy as np
import pytest

from lib.models import extraction

TEXTS = ["The man works as a nurse.", "The woman is very quiet today.", "The person spent the afternoon reading.",
         "The elderly neighbor enjoys doing the laundry on weekends.", "The individual is curious."]




def test_cache_hit_and_corruption_recovery(sandbox, monkeypatch):
    first = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    entry = next((sandbox / "cache" / "features").iterdir())
    with monkeypatch.context() as patch:
        patch.setattr(extraction, "_compute", lambda *args: pytest.fail("a cache hit ran the model"))
        again = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    np.testing.assert_array_equal(first, again)
    layer = entry / "layer_006.npy"
    layer.write_bytes(layer.read_bytes()[:100])  # truncated: must be detected and recomputed
    np.testing.assert_allclose(extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False), first, atol=1e-6)
    assert layer.stat().st_size > 100


def test_a_flipped_byte_in_a_cached_layer_is_reported_and_recomputed(sandbox, capsys):
    from conftest import flip_byte

    clean = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    layer = next((sandbox / "cache" / "features").iterdir()) / "layer_006.npy"
    flip_byte(layer, offset=layer.stat().st_size - 3)  # inside the last float: same size, same shape, other value
    capsys.readouterr()
    again = extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False)
    np.testing.assert_allclose(again, clean, atol=1e-6)
    [line] = capsys.readouterr().err.splitlines()
    assert "layer_006.npy" in line and "checksum" in line
    np.testing.assert_array_equal(extraction.extract("minilm", TEXTS, layers=[0, 6], progress=False), again)
    assert capsys.readouterr().err == ""


def test_only_requested_layers_are_stored_and_later_requests_add_to_them(sandbox):
    first = extraction.extract("minilm", TEXTS, layers=[6], progress=False)
    entry = next((sandbox / "cache" / "features").iterdir())
    assert sorted(p.name for p in entry.glob("*.npy")) == ["layer_006.npy"]
    both = extraction.extract("minilm", TEXTS, layers=[2, 6], progress=False)
    assert sorted(p.name for p in entry.glob("*.npy")) == ["layer_002.npy", "layer_006.npy"]
    np.testing.assert_allclose(both[1], first[0], atol=1e-6)
    np.testing.assert_allclose(extraction.extract("minilm", TEXTS, progress=False)[[2, 6]], both, atol=1e-5)


def test_max_tokens_reads_only_the_first_tokens_and_keys_the_cache(sandbox):
    shared = "The committee met on Tuesday to discuss the budget"
    texts = [shared + " and then everyone went home early.", shared + ", which nobody had read, over lunch at noon."]
    full = extraction.extract("minilm", texts, layers=[3], progress=False)[0]
    cut = extraction.extract("minilm", texts, layers=[3], max_tokens=8, progress=False)[0]
    assert not np.allclose(full[0], full[1], atol=1e-4)
    np.testing.assert_allclose(cut[0], cut[1], atol=1e-5)  # same first 8 tokens ([CLS] included): same input
    assert len(list((sandbox / "cache" / "features").iterdir())) == 2
    with pytest.raises(ValueError, match="max_tokens=0 is not allowed"):
        extraction.extract("minilm", texts, max_tokens=0)
