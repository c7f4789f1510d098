"""lib.kstar.sae.sae: JumpReLU and TopK encoders, folding, release loaders, offline TopK training (paper 002,
A.1.10)."""

import numpy as np
import pytest
import torch
from safetensors.numpy import save_file

from lib.kstar.sae import sae as saes


def _weights(rng, d=16, d_sae=64):
    return rng.standard_normal((d_sae, d)), rng.standard_normal(d_sae) * 0.3


def test_jumprelu_keeps_a_preactivation_only_above_its_threshold():
    rng = np.random.default_rng(0)
    W, b = _weights(rng)
    H = rng.standard_normal((20, 16))
    pre = H @ W.T + b
    for theta in (0.7, rng.uniform(0, 2, 64)):  # one shared scalar (Llama Scope) or per feature (Gemma Scope)
        G = saes.SAE("jumprelu", W, b, theta).encode(H).toarray()
        assert np.array_equal(G, np.where(pre > theta, pre, 0.0))


def test_topk_keeps_exactly_the_k_largest_preactivations():
    rng = np.random.default_rng(1)
    W, b = _weights(rng)
    H = rng.standard_normal((10, 16))
    G = saes.SAE("topk", W, b, k=5).encode(H).toarray()
    pre = H @ W.T + b
    assert np.all((G != 0).sum(1) == 5)
    for g, p in zip(G, pre, strict=True):
        assert set(np.flatnonzero(g)) == set(np.argsort(-p)[:5])
        assert np.array_equal(g[g != 0], p[g != 0])
    assert saes.TOPK == 50


def test_folded_llama_scope_encoder_matches_the_unfolded_reference_within_1e6(tmp_path):
    rng = np.random.default_rng(2)
    d, d_sae, theta = 16, 64, 0.4
    W_enc, b_enc = _weights(rng, d, d_sae)
    W_dec = rng.standard_normal((d, d_sae)) * rng.uniform(0.1, 3, d_sae)  # unnormalised decoder columns
    b_dec = rng.standard_normal(d)
    H = rng.standard_normal((30, d)) * 5
    c = np.sqrt(d) / np.linalg.norm(H, axis=1).mean()  # dataset-level input normalisation
    nu = np.linalg.norm(W_dec, axis=0)
    act = ((c * H) @ W_enc.T + b_enc) * nu  # reference: normalised input, activation times decoder norm
    reference = np.where(act > theta, act, 0.0)
    recon_reference = ((reference / nu) @ W_dec.T + b_dec) / c
    path = tmp_path / "final.safetensors"  # torch layout: encoder d_sae × d, decoder d × d_sae
    save_file({"encoder.weight": W_enc.astype(np.float32), "encoder.bias": b_enc.astype(np.float32),
               "decoder.weight": W_dec.astype(np.float32), "decoder.bias": b_dec.astype(np.float32)}, str(path))
    loaded = saes.load(path, kind="jumprelu", d_model=d, threshold=theta, input_scale=c, fold_decoder_norms=True)
    W32, b32, D32 = W_enc.astype(np.float32), b_enc.astype(np.float32), W_dec.astype(np.float32)
    act32 = ((c * H) @ W32.T.astype(np.float64) + b32) * np.linalg.norm(D32.astype(np.float64), axis=0)
    reference32 = np.where(act32 > theta, act32, 0.0)
    assert np.abs(loaded.encode(H).toarray() - reference32).max() <= 1e-6 * max(1.0, np.abs(reference32).max())
    assert np.abs(loaded.encode(H).toarray() - reference).max() < 1e-3  # float32 storage only
    assert np.allclose(loaded.decode(loaded.encode(H)), recon_reference, atol=1e-3)


def test_gemma_scope_npz_layout_and_per_feature_threshold(tmp_path):
    rng = np.random.default_rng(3)
    W, b = _weights(rng)
    theta = rng.uniform(0, 1, 64)
    np.savez(tmp_path / "params.npz", W_enc=W.T, b_enc=b, threshold=theta, W_dec=W, b_dec=np.zeros(16))
    loaded = saes.load(tmp_path / "params.npz", kind="jumprelu", d_model=16)
    H = rng.standard_normal((5, 16))
    assert np.allclose(loaded.encode(H).toarray(), saes.SAE("jumprelu", W, b, theta).encode(H).toarray())


def test_qwen_scope_pt_layout_is_read_by_shape_under_gemma_key_names(tmp_path):
    rng = np.random.default_rng(6)
    W, b = _weights(rng)  # Qwen-Scope stores W_enc as d_sae × d and W_dec as d × d_sae, in a torch dict
    W_dec, b_dec = rng.standard_normal((16, 64)), rng.standard_normal(16)
    path = tmp_path / "layer3.sae.pt"
    torch.save({"W_enc": torch.from_numpy(W), "b_enc": torch.from_numpy(b), "W_dec": torch.from_numpy(W_dec),
                "b_dec": torch.from_numpy(b_dec)}, path)
    loaded = saes.load(path, kind="topk", d_model=16, k=5)
    H = rng.standard_normal((7, 16))
    assert np.array_equal(loaded.encode(H).toarray(), saes.SAE("topk", W, b, k=5).encode(H).toarray())
    assert np.array_equal(loaded.W_dec, W_dec.T) and np.array_equal(loaded.b_dec, b_dec)
    torch.save(torch.from_numpy(W), tmp_path / "bare.pt")
    with pytest.raises(ValueError, match="bare.pt holds a Tensor; allowed: a dict of tensors"):
        saes.load(tmp_path / "bare.pt", kind="topk", d_model=16)


@pytest.mark.parametrize(("arrays", "match"), [
    ({"W_enc": np.zeros((15, 64)), "b_enc": np.zeros(64), "threshold": np.zeros(64)}, r"W_enc has shape \(15, 64\)"),
    ({"W_enc": np.zeros((16, 64)), "b_enc": np.zeros(63), "threshold": np.zeros(64)}, r"b_enc has shape \(63,\)"),
    ({"W_enc": np.zeros((16, 64)), "b_enc": np.zeros(64), "threshold": np.zeros(10)}, r"threshold has shape \(10,\)"),
    ({"W_enc": np.zeros((16, 64, 1)), "b_enc": np.zeros(64)}, r"W_enc has shape \(16, 64, 1\)"),
    ({"b_enc": np.zeros(64)}, "holds no W_enc"),
])
def test_misshapen_release_files_are_refused_naming_the_shape(tmp_path, arrays, match):
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match=match):
        saes.load(tmp_path / "bad.npz", kind="jumprelu", d_model=16)


def test_topk_training_reconstructs_sparse_data_and_reads_raw_units():
    rng = np.random.default_rng(4)
    d, n_atoms = 16, 32
    atoms = rng.standard_normal((n_atoms, d))
    codes = rng.exponential(1.0, (3000, n_atoms)) * (rng.random((3000, n_atoms)) < 3 / n_atoms)
    codes[codes.sum(1) == 0, 0] = 1.0  # every row carries signal
    X = (codes @ atoms) * 40 + 100  # large units and an offset: folded into the encoder
    model = saes.train_topk(X, 64, k=4, steps=400, batch_size=256, lr=3e-3, seed=0)
    assert model.kind == "topk" and model.k == 4 and model.W_enc.shape == (64, d)
    recon = model.decode(model.encode(X[:500])) - 100  # cosine of the signal, without the offset's help
    signal = X[:500] - 100
    cosine = (signal * recon).sum(1) / (np.linalg.norm(signal, axis=1) * np.linalg.norm(recon, axis=1))
    assert np.median(cosine) > 0.9
    with pytest.raises(ValueError, match="k="):
        saes.train_topk(X, 8, k=9)


def test_the_stages_of_one_training_are_the_shorter_trainings():
    X = np.random.default_rng(5).standard_normal((400, 8)) * 3 + 1
    stages = saes.train_topk_stages(X, 16, stages=(30, 10), k=2, batch_size=64, lr=3e-3, seed=1)
    assert sorted(stages) == [10, 30]
    for steps, staged in stages.items():
        alone = saes.train_topk(X, 16, k=2, steps=steps, batch_size=64, lr=3e-3, seed=1)
        for name in ("W_enc", "b_enc", "W_dec", "b_dec"):
            np.testing.assert_array_equal(getattr(staged, name), getattr(alone, name))
    assert not np.array_equal(stages[10].W_enc, stages[30].W_enc)
    with pytest.raises(ValueError, match="stages >= 1"):
        saes.train_topk_stages(X, 16, stages=(0,), k=2)


def test_the_topk_loss_is_the_dense_decoders_loss_with_its_gradients():
    """The embedding-bag decoder against the dense code matrix it replaces: loss and every gradient."""
    gen = torch.Generator().manual_seed(0)
    d, d_sae, k = 24, 96, 5
    batch = torch.randn(64, d, generator=gen) * 2 + 0.5
    weights = [torch.randn(d_sae, d, generator=gen), torch.randn(d_sae, generator=gen) * 0.1,
               torch.randn(d_sae, d, generator=gen), torch.randn(d, generator=gen)]
    weights = [w.requires_grad_(True) for w in weights]
    W_enc, b_enc, W_dec, b_pre = weights

    pre = (batch - b_pre) @ W_enc.T + b_enc
    top = torch.topk(pre, k, dim=1)
    codes = torch.zeros_like(pre).scatter(1, top.indices, top.values)
    dense = ((codes @ W_dec + b_pre - batch) ** 2).sum(1).mean()
    sparse = saes.topk_loss(batch, W_enc, b_enc, W_dec, b_pre, k)
    torch.testing.assert_close(sparse, dense, rtol=1e-6, atol=0)
    for got, expected in zip(torch.autograd.grad(sparse, weights), torch.autograd.grad(dense, weights), strict=True):
        assert got.abs().sum() > 0
        torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-5)
