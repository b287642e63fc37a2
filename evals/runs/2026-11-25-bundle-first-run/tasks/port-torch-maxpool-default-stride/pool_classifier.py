"""Flax NNX port of the small PyTorch classifier (channels-last input).

PyTorch:

    conv = nn.Conv2d(in_channels, 8, kernel_size=3, padding=1)
    pool = nn.MaxPool2d(2)
    fc   = nn.Linear(8, n_classes)
    forward(x) = fc(pool(relu(conv(x))).mean(dim=(2, 3)))

The defaults that differ between the two libraries, and what this port sets explicitly:

* `nn.MaxPool2d(2)` has stride = kernel_size = 2 (non-overlapping windows). `nnx.max_pool` defaults
  to strides=1 (overlapping windows, a 7x7 map from 8x8 instead of 4x4); nothing fails, because the
  global mean hides the shape, but the logits change. Here: window (2, 2), strides (2, 2), 'VALID'
  (= torch's ceil_mode=False: an odd trailing row/column is dropped).
* `nn.Conv2d(..., padding=1)` pads one pixel on each side. nnx.Conv's default 'SAME' happens to agree
  for a 3x3 kernel at stride 1, but the padding is written out so the port does not depend on it.
* Layouts: input NHWC (the pipeline's), conv kernel HWIO (torch OIHW -> transpose(2, 3, 1, 0)),
  Linear kernel (in, out) (torch (out, in) -> .T). The spatial mean is over axes (1, 2) in NHWC,
  which are torch's dims (2, 3) in NCHW.
* Full float32 products (`Precision.HIGHEST`) so that GPU/TPU do not use TF32/bf16 passes.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from flax import nnx

_HIGHEST = jax.lax.Precision.HIGHEST
_TORCH_WEIGHT_INIT = nnx.initializers.variance_scaling(1 / 3, "fan_in", "uniform")  # U(+-1/sqrt(fan_in))


def _torch_bias_init(fan_in: int):
    bound = 1.0 / math.sqrt(fan_in)

    def init(key: jax.Array, shape, dtype=jnp.float32) -> jax.Array:
        return jax.random.uniform(key, shape, dtype, -bound, bound)

    return init


class Classifier(nnx.Module):
    """conv 3x3 (pad 1) -> ReLU -> 2x2 max pool, stride 2 -> spatial mean -> Linear; NHWC input."""

    def __init__(self, in_channels: int, n_classes: int, *, rngs: nnx.Rngs):
        self.conv = nnx.Conv(
            in_channels,
            8,
            kernel_size=(3, 3),
            strides=(1, 1),
            padding=((1, 1), (1, 1)),  # torch padding=1: one pixel on both sides
            use_bias=True,
            precision=_HIGHEST,
            kernel_init=_TORCH_WEIGHT_INIT,
            bias_init=_torch_bias_init(in_channels * 3 * 3),
            rngs=rngs,
        )
        self.fc = nnx.Linear(
            8,
            n_classes,
            precision=_HIGHEST,
            kernel_init=_TORCH_WEIGHT_INIT,
            bias_init=_torch_bias_init(8),
            rngs=rngs,
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        """x: float32 (N, H, W, in_channels) -> logits (N, n_classes)."""
        h = jax.nn.relu(self.conv(x))
        # torch MaxPool2d(2): stride defaults to the kernel size; nnx.max_pool's default stride is 1.
        h = nnx.max_pool(h, window_shape=(2, 2), strides=(2, 2), padding="VALID")
        return self.fc(jnp.mean(h, axis=(1, 2)))


if __name__ == "__main__":
    # Self-check against the PyTorch formulas in float64 NumPy (no torch needed).
    import numpy as np

    rng = np.random.default_rng(0)
    n, c, hgt, wid, k = 3, 4, 9, 8, 5  # odd height: torch floors it away
    w_conv = rng.normal(size=(8, c, 3, 3)) / 6  # OIHW
    b_conv = rng.normal(size=8) * 0.1
    w_fc = rng.normal(size=(k, 8)) / 3  # (out, in)
    b_fc = rng.normal(size=k) * 0.1
    x_nchw = rng.normal(size=(n, c, hgt, wid))

    xp = np.pad(x_nchw, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((n, 8, hgt, wid))
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,oc->nohw", xp[:, :, i : i + hgt, j : j + wid], w_conv[:, :, i, j])
    act = np.maximum(conv + b_conv[None, :, None, None], 0)
    ho, wo = hgt // 2, wid // 2
    pooled = act[:, :, : 2 * ho, : 2 * wo].reshape(n, 8, ho, 2, wo, 2).max(axis=(3, 5))
    ref = pooled.mean(axis=(2, 3)) @ w_fc.T + b_fc

    model = Classifier(c, k, rngs=nnx.Rngs(0))
    model.conv.kernel[...] = jnp.asarray(w_conv.transpose(2, 3, 1, 0), jnp.float32)
    model.conv.bias[...] = jnp.asarray(b_conv, jnp.float32)
    model.fc.kernel[...] = jnp.asarray(w_fc.T, jnp.float32)
    model.fc.bias[...] = jnp.asarray(b_fc, jnp.float32)
    got = nnx.jit(lambda m, v: m(v))(model, jnp.asarray(x_nchw.transpose(0, 2, 3, 1), jnp.float32))
    err = float(np.abs(np.asarray(got, np.float64) - ref).max())
    print(got.shape, f"max abs err vs torch formula: {err:.1e}")
    assert got.shape == (n, k) and err < 1e-5
