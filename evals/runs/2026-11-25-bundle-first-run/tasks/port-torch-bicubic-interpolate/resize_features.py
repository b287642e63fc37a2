"""PyTorch-exact bicubic resizing in JAX.

Equivalent of

    F.interpolate(x, size=size, mode="bicubic", align_corners=False)

for NCHW float tensors, upsampling and downsampling.

Why not plain `jax.image.resize(x, shape, "cubic")`: it differs from PyTorch in three ways, each of
which changes the numbers (errors of order 0.1 on unit-scale data):

* its cubic kernel is Keys with a = -0.5; PyTorch's bicubic uses A = -0.75;
* it antialiases by default when downsampling (widens the kernel); PyTorch's bicubic with the default
  `antialias=False` always uses the same 4 taps;
* at the borders it renormalises the weights of the taps that fall inside the image; PyTorch clamps the
  tap indices to the image (replicates the border pixel).

So this module builds PyTorch's 1-D interpolation matrices itself (the exact formula of
`upsample_bicubic2d` with `align_corners=False`) and applies them separably, one matrix per spatial
axis. The matrices depend only on the static shapes, so they are NumPy constants built at trace time
and the function works under `jax.jit` with `size` static.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

_A = -0.75  # PyTorch's bicubic constant (Keys kernel parameter)


def _cubic_near(t: np.ndarray) -> np.ndarray:
    """PyTorch cubic_convolution1: weight of a tap at distance |t| <= 1."""
    return ((_A + 2.0) * t - (_A + 3.0)) * t * t + 1.0


def _cubic_far(t: np.ndarray) -> np.ndarray:
    """PyTorch cubic_convolution2: weight of a tap at distance 1 < |t| < 2."""
    return ((_A * t - 5.0 * _A) * t + 8.0 * _A) * t - 4.0 * _A


@functools.lru_cache(maxsize=None)
def _bicubic_matrix(n_in: int, n_out: int) -> np.ndarray:
    """(n_out, n_in) matrix M with out = M @ in along one axis, as torch computes it.

    align_corners=False, size given (no scale_factor): scale = n_in / n_out and the source coordinate
    of output pixel d is s = (d + 0.5) * scale - 0.5 (not clamped at 0 for cubic, unlike linear).
    The four taps floor(s) - 1 .. floor(s) + 2 get the weights
    [far(t + 1), near(t), near(1 - t), far(2 - t)] with t = s - floor(s), and tap indices outside the
    image are clamped to [0, n_in - 1] (border replication), so their weights add up on the border pixel.
    """
    scale = n_in / n_out
    d = np.arange(n_out, dtype=np.float64)
    s = (d + 0.5) * scale - 0.5
    i0 = np.floor(s)
    t = s - i0
    i0 = np.minimum(i0.astype(np.int64), n_in - 1)  # torch's guard_index_and_lambda (a no-op here)
    weights = np.stack([_cubic_far(t + 1.0), _cubic_near(t), _cubic_near(1.0 - t), _cubic_far(2.0 - t)], axis=1)
    taps = np.clip(i0[:, None] + np.arange(-1, 3)[None, :], 0, n_in - 1)
    m = np.zeros((n_out, n_in), dtype=np.float64)
    rows = np.broadcast_to(np.arange(n_out)[:, None], taps.shape)
    np.add.at(m, (rows, taps), weights)  # unbuffered: clamped duplicate taps accumulate
    return m


def resize_features(x: jax.Array, size: tuple[int, int]) -> jax.Array:
    """F.interpolate(x, size=size, mode="bicubic", align_corners=False) for x of shape (N, C, H, W).

    Returns an array of shape (N, C, out_h, out_w) with x's dtype (float32 for float32 input).
    Works eagerly and under `jax.jit(resize_features, static_argnums=1)` (or static_argnames="size").
    """
    x = jnp.asarray(x)
    if x.ndim != 4:
        raise ValueError(f"expected an NCHW array, got shape {x.shape}")
    if isinstance(size, int):
        size = (size, size)
    out_h, out_w = (int(v) for v in size)
    if out_h <= 0 or out_w <= 0:
        raise ValueError(f"output size must be positive, got {size}")
    _, _, h, w = x.shape

    m_h = jnp.asarray(_bicubic_matrix(h, out_h), dtype=x.dtype)  # (out_h, H)
    m_w = jnp.asarray(_bicubic_matrix(w, out_w), dtype=x.dtype)  # (out_w, W)

    # Full float32 products: on GPU/TPU the default float32 matmul precision uses TF32/bf16 passes,
    # which would move the result by ~1e-3 and break the match with PyTorch.
    highest = jax.lax.Precision.HIGHEST
    y = jnp.einsum("nchw,pw->nchp", x, m_w, precision=highest)  # along W
    y = jnp.einsum("oh,nchp->ncop", m_h, y, precision=highest)  # along H
    return y.astype(x.dtype)


if __name__ == "__main__":
    # Self-check against a direct float64 loop over PyTorch's formula (no torch needed).
    def reference(img: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        def axis_weights(n_in, n_out):
            out = []
            for dst in range(n_out):
                src = (dst + 0.5) * (n_in / n_out) - 0.5
                base = int(np.floor(src))
                t = src - base
                ws = [_cubic_far(t + 1), _cubic_near(t), _cubic_near(1 - t), _cubic_far(2 - t)]
                idx = [min(max(base + k, 0), n_in - 1) for k in (-1, 0, 1, 2)]
                out.append(list(zip(idx, ws)))
            return out

        n, c, h, w = img.shape
        wy, wx = axis_weights(h, size[0]), axis_weights(w, size[1])
        res = np.zeros((n, c) + tuple(size))
        for oy in range(size[0]):
            for ox in range(size[1]):
                acc = 0.0
                for iy, a in wy[oy]:
                    for ix, b in wx[ox]:
                        acc = acc + a * b * img[:, :, iy, ix]
                res[:, :, oy, ox] = acc
        return res

    rng = np.random.default_rng(0)
    img = rng.normal(size=(2, 3, 9, 7))
    jitted = jax.jit(resize_features, static_argnums=1)
    for target in [(18, 14), (4, 5), (9, 7), (13, 3)]:
        got = np.asarray(jitted(jnp.asarray(img, jnp.float32), target))
        err = np.abs(got - reference(img, target)).max()
        print(target, got.shape, got.dtype, f"max abs err {err:.1e}")
        assert got.shape == (2, 3) + target and got.dtype == np.float32 and err < 1e-5
