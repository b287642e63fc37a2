"""Flax NNX port of the small PyTorch classifier (channels-last input).

PyTorch:

    self.conv = nn.Conv2d(in_channels, 8, kernel_size=3, padding=1)
    self.pool = nn.MaxPool2d(2)
    self.fc = nn.Linear(8, n_classes)
    forward: fc(pool(relu(conv(x))).mean(dim=(2, 3)))

Defaults that differ between the two libraries, and what this port sets explicitly:

* `nn.MaxPool2d(2)` has `stride=None`, which means stride = kernel_size = 2 (non-overlapping windows,
  floor rule for odd sizes). `nnx.max_pool(x, (2, 2))` defaults to `strides=1` (overlapping windows, a
  (H-1, W-1) map): it runs without error, and after the global mean the logits are just slightly wrong.
  So: `nnx.max_pool(h, (2, 2), strides=(2, 2), padding="VALID")`; 'VALID' floors like torch's
  `ceil_mode=False`.
* `nn.Conv2d(..., padding=1)` pads one pixel on each side; `nnx.Conv` defaults to 'SAME'. For a 3x3,
  stride-1 conv they coincide, but the port states `padding=((1, 1), (1, 1))` so it cannot drift.
* Layout: input NHWC instead of NCHW, so torch's mean over dims (2, 3) is a mean over axes (1, 2);
  conv kernel HWIO (torch weight.transpose(2, 3, 1, 0)), Linear kernel (in, out) (torch weight.T).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx


class Classifier(nnx.Module):
    def __init__(self, in_channels: int, n_classes: int, *, rngs: nnx.Rngs):
        # kernel (3, 3, in_channels, 8) HWIO, bias (8,)
        self.conv = nnx.Conv(
            in_channels, 8, kernel_size=(3, 3), strides=(1, 1), padding=((1, 1), (1, 1)),
            use_bias=True, rngs=rngs,
        )
        # kernel (8, n_classes), bias (n_classes,)
        self.fc = nnx.Linear(8, n_classes, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        """x: (N, H, W, in_channels) float32 -> logits (N, n_classes)."""
        h = jax.nn.relu(self.conv(x))
        # torch MaxPool2d(2): window 2, stride 2 (stride defaults to kernel_size), floor
        h = nnx.max_pool(h, window_shape=(2, 2), strides=(2, 2), padding="VALID")
        h = jnp.mean(h, axis=(1, 2))  # torch: mean over (H, W) = dims (2, 3) of NCHW
        return self.fc(h)


if __name__ == "__main__":
    # Check against the PyTorch computation written out in float64 NumPy (NCHW), odd size included.
    import numpy as np

    rng = np.random.default_rng(0)
    cin, ncls = 3, 5
    w_conv = rng.normal(size=(8, cin, 3, 3)) / 5  # torch OIHW
    b_conv = 0.1 * rng.normal(size=8)
    w_fc = rng.normal(size=(ncls, 8)) / 3  # torch (out, in)
    b_fc = 0.1 * rng.normal(size=ncls)

    def ref_forward(x_nchw):
        n, c, hgt, wid = x_nchw.shape
        xp = np.pad(x_nchw, ((0, 0), (0, 0), (1, 1), (1, 1)))
        conv = np.zeros((n, 8, hgt, wid))
        for i in range(3):
            for j in range(3):
                conv += np.einsum("nchw,oc->nohw", xp[:, :, i:i + hgt, j:j + wid], w_conv[:, :, i, j])
        conv = np.maximum(conv + b_conv[None, :, None, None], 0)
        ho, wo = hgt // 2, wid // 2
        pooled = conv[:, :, : 2 * ho, : 2 * wo].reshape(n, 8, ho, 2, wo, 2).max(axis=(3, 5))
        return pooled.mean(axis=(2, 3)) @ w_fc.T + b_fc

    model = Classifier(cin, ncls, rngs=nnx.Rngs(0))
    model.conv.kernel[...] = jnp.asarray(w_conv.transpose(2, 3, 1, 0), jnp.float32)
    model.conv.bias[...] = jnp.asarray(b_conv, jnp.float32)
    model.fc.kernel[...] = jnp.asarray(w_fc.T, jnp.float32)
    model.fc.bias[...] = jnp.asarray(b_fc, jnp.float32)

    for hgt, wid in [(8, 8), (7, 9)]:
        x_nchw = rng.normal(size=(2, cin, hgt, wid))
        got = np.asarray(model(jnp.asarray(x_nchw.transpose(0, 2, 3, 1), jnp.float32)))
        err = np.abs(got - ref_forward(x_nchw)).max()
        print((hgt, wid), got.shape, f"max abs err {err:.2e}")
        assert got.shape == (2, ncls) and err < 1e-5
