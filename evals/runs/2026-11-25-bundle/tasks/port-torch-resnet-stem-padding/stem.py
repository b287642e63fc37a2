"""Flax NNX port of the PyTorch ResNet stem, channels-last (NHWC) in and out.

PyTorch:

    self.conv1 = nn.Conv2d(3, 16, kernel_size=7, stride=2, padding=3, bias=False)
    self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
    forward: pool(relu(conv1(x)))

The silent trap is padding with stride 2. torch's `padding=3` pads 3 pixels on *both* sides. NNX's
default `padding='SAME'` with stride 2 on an even input (224) needs only 5 pixels in total and puts
2 before and 3 after (XLA puts the odd pixel at the end), so every output pixel is shifted by one input
pixel while the output shape is the same (112x112): no error, wrong activations. The same holds for the
max pool: torch's `padding=1` is one pixel on each side, while 'SAME' with stride 2 on 112 pads 0
before and 1 after. Both are therefore given as explicit symmetric pads:

* conv1: `padding=((3, 3), (3, 3))`, strides 2, no bias;
* pool:  `nnx.max_pool(h, (3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))`. The pool is a
  lax.reduce_window with init value -inf, so the padded border never wins a max, exactly as in torch
  (which pads a max pool with -inf). Stride is set explicitly; nnx.max_pool's default is 1.

With explicit pads both libraries use the floor rule, out = floor((in + 2p - k) / s) + 1, so shapes
agree for any input size (224 -> 112 -> 56; odd sizes too).
Weights: torch OIHW -> nnx HWIO via weight.transpose(2, 3, 1, 0).
"""

from __future__ import annotations

import jax
from flax import nnx


class Stem(nnx.Module):
    def __init__(self, *, rngs: nnx.Rngs):
        # kernel (7, 7, 3, 16) HWIO, no bias
        self.conv1 = nnx.Conv(
            3, 16, kernel_size=(7, 7), strides=(2, 2), padding=((3, 3), (3, 3)),
            use_bias=False, rngs=rngs,
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        """x: (N, H, W, 3) float32 NHWC -> (N, H_out, W_out, 16) NHWC."""
        h = jax.nn.relu(self.conv1(x))
        return nnx.max_pool(h, window_shape=(3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))


if __name__ == "__main__":
    # Check against torch's formulas in float64 NumPy (NCHW), on even and odd sizes.
    import jax.numpy as jnp
    import numpy as np

    rng = np.random.default_rng(0)
    w = rng.normal(size=(16, 3, 7, 7)) / np.sqrt(3 * 49)  # torch OIHW

    def ref_stem(x):  # x NCHW float64
        n, c, hgt, wid = x.shape
        xp = np.pad(x, ((0, 0), (0, 0), (3, 3), (3, 3)))
        ho, wo = (hgt + 6 - 7) // 2 + 1, (wid + 6 - 7) // 2 + 1
        conv = np.zeros((n, 16, ho, wo))
        for i in range(7):
            for j in range(7):
                patch = xp[:, :, i:i + 2 * ho:2, j:j + 2 * wo:2]
                conv += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
        h = np.maximum(conv, 0)
        hp = np.pad(h, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        po, qo = (ho + 2 - 3) // 2 + 1, (wo + 2 - 3) // 2 + 1
        out = np.full((n, 16, po, qo), -np.inf)
        for i in range(3):
            for j in range(3):
                out = np.maximum(out, hp[:, :, i:i + 2 * po:2, j:j + 2 * qo:2])
        return out

    model = Stem(rngs=nnx.Rngs(0))
    model.conv1.kernel[...] = jnp.asarray(w.transpose(2, 3, 1, 0), jnp.float32)
    fwd = nnx.jit(lambda m, x: m(x))
    for size in [(32, 32), (33, 29), (224, 224)]:
        x = rng.normal(size=(2, 3) + size)
        ref = ref_stem(x).transpose(0, 2, 3, 1)  # NCHW -> NHWC
        got = np.asarray(fwd(model, jnp.asarray(x.transpose(0, 2, 3, 1), jnp.float32)))
        err = np.abs(got - ref).max()
        print(size, got.shape, f"max abs err {err:.2e}")
        assert got.shape == ref.shape and err < 1e-4
