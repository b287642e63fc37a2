"""Grade `pool_classifier`: Conv2d -> ReLU -> MaxPool2d(2) -> mean -> Linear ported to NNX.

The reference is the PyTorch documentation's formulas in float64 NumPy: Conv2d(padding=1) zero-pads
one pixel on both sides; MaxPool2d(2) has stride = kernel_size = 2 and floors the output size; the
spatial mean and Linear (y = x W^T + b) follow.
"""

import math

import jax.numpy as jnp
import numpy as np
from flax import nnx

C_IN, N_CLASSES = 3, 5


def torch_weights(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "conv.weight": rng.normal(size=(8, C_IN, 3, 3)) / math.sqrt(C_IN * 9),
        "conv.bias": 0.1 * rng.normal(size=8),
        "fc.weight": rng.normal(size=(N_CLASSES, 8)),
        "fc.bias": 0.1 * rng.normal(size=N_CLASSES),
    }


def torch_classifier(w: dict, x: np.ndarray) -> np.ndarray:
    """x NCHW."""
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    n, _, h, wd = x.shape
    conv = np.zeros((n, 8, h, wd)) + w["conv.bias"][None, :, None, None]
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i : i + h, j : j + wd], w["conv.weight"][:, :, i, j])
    r = np.maximum(conv, 0.0)
    ho, wo = h // 2, wd // 2
    pooled = r[:, :, : 2 * ho, : 2 * wo].reshape(n, 8, ho, 2, wo, 2).max(axis=(3, 5))
    return pooled.mean(axis=(2, 3)) @ w["fc.weight"].T + w["fc.bias"]


def check(answer, size: int) -> None:
    w = torch_weights()
    model = answer.Classifier(C_IN, N_CLASSES, rngs=nnx.Rngs(0))
    model.conv.kernel[...] = jnp.asarray(w["conv.weight"].transpose(2, 3, 1, 0), jnp.float32)
    model.conv.bias[...] = jnp.asarray(w["conv.bias"], jnp.float32)
    model.fc.kernel[...] = jnp.asarray(w["fc.weight"].T, jnp.float32)
    model.fc.bias[...] = jnp.asarray(w["fc.bias"], jnp.float32)
    x = np.random.default_rng(size).normal(size=(4, C_IN, size, size)).astype(np.float32).astype(np.float64)
    got = np.asarray(model(jnp.asarray(x.transpose(0, 2, 3, 1), jnp.float32)), np.float64)
    want = torch_classifier(w, x)
    assert got.shape == want.shape, f"logits shape {got.shape}, expected {want.shape}"
    err = float(np.max(np.abs(got - want)))
    assert err < 1e-5, f"{size}x{size} images: logits off by {err:.2e} from the PyTorch model (max |logit| {np.abs(want).max():.2f})"


def test_logits_match_on_even_images(answer):
    check(answer, 16)


def test_logits_match_on_odd_images(answer):
    check(answer, 7)  # MaxPool2d floors: 7x7 -> 3x3


def test_layers_are_nnx_conv_and_linear(answer):
    model = answer.Classifier(C_IN, N_CLASSES, rngs=nnx.Rngs(0))
    assert isinstance(model.conv, nnx.Conv) and model.conv.kernel.shape == (3, 3, C_IN, 8)
    assert isinstance(model.fc, nnx.Linear) and model.fc.kernel.shape == (8, N_CLASSES)
