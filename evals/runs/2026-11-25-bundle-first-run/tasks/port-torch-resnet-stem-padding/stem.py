"""Flax NNX port of the PyTorch ResNet stem (channels-last input and output).

PyTorch:

    conv1 = nn.Conv2d(3, 16, kernel_size=7, stride=2, padding=3, bias=False)
    pool  = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
    forward(x) = pool(relu(conv1(x)))

Where a naive port goes wrong, and what this one does instead:

* Conv padding. torch `padding=3` pads 3 pixels on *both* sides. nnx.Conv's default 'SAME' with
  stride 2 pads asymmetrically: for a 224x224 input it needs 5 pixels in total and puts 2 before and
  3 after, so the output has the right shape (112x112) but every pixel is shifted by one input pixel.
  Here: padding=((3, 3), (3, 3)), for any input size: H_out = floor((H + 6 - 7) / 2) + 1, as torch.
* Pool padding. torch MaxPool2d pads with -inf (padding never wins the max) on both sides.
  `nnx.max_pool(..., padding=((1, 1), (1, 1)))` pads with its init value -inf as well (lax.reduce_window),
  and 'VALID' on the padded map is torch's ceil_mode=False floor rule. The stride (2) is written out:
  nnx.max_pool defaults to stride 1, torch to the kernel size.
* Layouts: NHWC in and out; conv kernel HWIO, loaded from torch's OIHW with weight.transpose(2, 3, 1, 0).
* Full float32 convolution (`Precision.HIGHEST`) so that GPU/TPU do not use TF32/bf16 passes.
"""

from __future__ import annotations

import jax
from flax import nnx


class Stem(nnx.Module):
    """7x7/2 conv (pad 3, no bias) -> ReLU -> 3x3/2 max pool (pad 1); NHWC in, NHWC out."""

    def __init__(self, *, rngs: nnx.Rngs):
        self.conv1 = nnx.Conv(
            3,
            16,
            kernel_size=(7, 7),
            strides=(2, 2),
            padding=((3, 3), (3, 3)),  # torch padding=3: symmetric, never 'SAME'
            use_bias=False,
            precision=jax.lax.Precision.HIGHEST,
            # torch's default init U(+-1/sqrt(fan_in)); only matters when training from scratch
            kernel_init=nnx.initializers.variance_scaling(1 / 3, "fan_in", "uniform"),
            rngs=rngs,
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        """x: float32 (N, H, W, 3) -> (N, H_out, W_out, 16), equal to torch's NCHW output transposed."""
        h = jax.nn.relu(self.conv1(x))
        return nnx.max_pool(h, window_shape=(3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))


if __name__ == "__main__":
    # Self-check against the PyTorch formulas in float64 NumPy (no torch needed).
    import jax.numpy as jnp
    import numpy as np

    def ref_stem(x, w):  # x NCHW, w OIHW
        n, _, hgt, wid = x.shape
        xp = np.pad(x, ((0, 0), (0, 0), (3, 3), (3, 3)))
        ho, wo = (hgt + 6 - 7) // 2 + 1, (wid + 6 - 7) // 2 + 1
        conv = np.zeros((n, 16, ho, wo))
        for i in range(7):
            for j in range(7):
                patch = xp[:, :, i : i + 2 * ho : 2, j : j + 2 * wo : 2]
                conv += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
        act = np.maximum(conv, 0)
        ap = np.pad(act, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
        po, qo = (ho + 2 - 3) // 2 + 1, (wo + 2 - 3) // 2 + 1
        out = np.full((n, 16, po, qo), -np.inf)
        for i in range(3):
            for j in range(3):
                out = np.maximum(out, ap[:, :, i : i + 2 * po : 2, j : j + 2 * qo : 2])
        return out

    rng = np.random.default_rng(0)
    w = rng.normal(size=(16, 3, 7, 7)) / np.sqrt(3 * 49)
    model = Stem(rngs=nnx.Rngs(0))
    model.conv1.kernel[...] = jnp.asarray(w.transpose(2, 3, 1, 0), jnp.float32)
    forward = nnx.jit(lambda m, v: m(v))
    for hgt, wid in [(32, 32), (31, 29), (224, 224)]:
        x = rng.normal(size=(2, 3, hgt, wid))
        ref = ref_stem(x, w).transpose(0, 2, 3, 1)
        got = forward(model, jnp.asarray(x.transpose(0, 2, 3, 1), jnp.float32))
        err = float(np.abs(np.asarray(got, np.float64) - ref).max())
        print((hgt, wid), got.shape, f"max abs err vs torch formula: {err:.1e}")
        assert got.shape == ref.shape and err < 1e-4
