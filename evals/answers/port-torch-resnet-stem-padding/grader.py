"""Grade `stem`: PyTorch's ResNet stem (7x7/2 conv, padding 3; ReLU; 3x3/2 max pool, padding 1) in NNX.

The reference is the PyTorch documentation's formulas in float64 NumPy: Conv2d is a cross-correlation
of the input zero-padded by `padding` pixels on both sides; MaxPool2d pads by `padding` pixels of
-inf on both sides; output sizes floor((size + 2 p - k) / s) + 1.
"""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


def torch_conv2d(x: np.ndarray, w: np.ndarray, stride: int, padding: int) -> np.ndarray:
    """x NCHW, w OIHW, no bias."""
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    _, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((x.shape[0], o, ho, wo))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i : i + stride * ho : stride, j : j + stride * wo : stride]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return out


def torch_max_pool2d(x: np.ndarray, k: int, stride: int, padding: int) -> np.ndarray:
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)), constant_values=-np.inf)
    ho, wo = (x.shape[2] - k) // stride + 1, (x.shape[3] - k) // stride + 1
    out = np.full(x.shape[:2] + (ho, wo), -np.inf)
    for i in range(k):
        for j in range(k):
            out = np.maximum(out, x[:, :, i : i + stride * ho : stride, j : j + stride * wo : stride])
    return out


def torch_stem(x_nchw: np.ndarray, w: np.ndarray) -> np.ndarray:
    return torch_max_pool2d(np.maximum(torch_conv2d(x_nchw, w, 2, 3), 0.0), 3, 2, 1)


def weight() -> np.ndarray:
    return np.random.default_rng(0).normal(size=(16, 3, 7, 7)) / np.sqrt(3 * 49)


def check(answer, size: int) -> None:
    w = weight()
    x = np.random.default_rng(size).normal(size=(2, 3, size, size)).astype(np.float32).astype(np.float64)
    model = answer.Stem(rngs=nnx.Rngs(0))
    model.conv1.kernel[...] = jnp.asarray(w.transpose(2, 3, 1, 0), jnp.float32)
    got = np.asarray(model(jnp.asarray(x.transpose(0, 2, 3, 1), jnp.float32)), np.float64)
    want = torch_stem(x, w.astype(np.float32).astype(np.float64)).transpose(0, 2, 3, 1)
    assert got.shape == want.shape, f"{size}x{size} image: output shape {got.shape}, PyTorch gives {want.shape}"
    err = float(np.max(np.abs(got - want)))
    assert err < 1e-4, (
        f"{size}x{size} image: max abs error {err:.2e} against the PyTorch stem (activations up to "
        f"{np.abs(want).max():.1f}); the padding decides which input pixels each output sees"
    )


def test_even_size_64(answer):
    check(answer, 64)


def test_even_size_32(answer):
    check(answer, 32)


def test_odd_size_33(answer):
    check(answer, 33)


def test_conv1_is_an_nnx_conv_without_bias(answer):
    model = answer.Stem(rngs=nnx.Rngs(0))
    assert isinstance(model.conv1, nnx.Conv)
    assert model.conv1.kernel.shape == (7, 7, 3, 16)
    assert sum(p.size for p in jax.tree.leaves(nnx.state(model, nnx.Param))) == 7 * 7 * 3 * 16, (
        "the stem has exactly the conv kernel as parameters (bias=False in PyTorch)"
    )
