"""JAX port of F.interpolate(x, size=size, mode="bicubic", align_corners=False).

Why not the default `jax.image.resize(x, shape, "cubic")`: it differs from PyTorch in two silent ways.

* Its "cubic" kernel is Keys' cubic with a = -0.5; PyTorch's bicubic uses a = -0.75.
* It antialiases by default (`antialias=True`): when downsampling it widens the kernel. PyTorch's
  F.interpolate has `antialias=False` by default and always uses the 4-tap kernel.

PyTorch's bicubic (align_corners=False, antialias=False), per output pixel `d` along one axis:

    scale = in_size / out_size
    src   = (d + 0.5) * scale - 0.5        # half-pixel centres, NOT clamped to 0 for cubic
    i0    = floor(src),  t = src - i0
    out   = sum_{k=-1..2} w_k(t) * in[clamp(i0 + k, 0, in_size - 1)]   # border pixels replicated

with the Keys kernel at A = -0.75. The resize is separable (rows, then columns), so this module builds
the two 1-D interpolation matrices exactly as PyTorch computes them, in NumPy float64 at trace time
(the sizes are static), and applies them with two einsums in float32. This is the same arithmetic as
PyTorch's kernel up to float32 rounding, for upsampling and downsampling alike, and for any in/out size.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

_A = -0.75  # PyTorch's bicubic coefficient (torch: get_cubic_upsample_coefficients)


def _cubic_conv1(z: float) -> float:
    """Keys kernel for |z| <= 1."""
    return ((_A + 2.0) * z - (_A + 3.0)) * z * z + 1.0


def _cubic_conv2(z: float) -> float:
    """Keys kernel for 1 < |z| < 2."""
    return ((_A * z - 5.0 * _A) * z + 8.0 * _A) * z - 4.0 * _A


def _bicubic_matrix(n_in: int, n_out: int) -> np.ndarray:
    """(n_out, n_in) matrix M with out = M @ in, reproducing torch's 1-D bicubic weights."""
    m = np.zeros((n_out, n_in), dtype=np.float64)
    if n_in == n_out:  # torch copies the input unchanged
        np.fill_diagonal(m, 1.0)
        return m
    # align_corners=False and no scale_factor given: torch uses in/out as the scale
    scale = n_in / n_out
    for d in range(n_out):
        src = (d + 0.5) * scale - 0.5  # no clamp to 0 for cubic (torch: cubic=True)
        i0 = math.floor(src)
        t = src - i0
        weights = (
            _cubic_conv2(t + 1.0),
            _cubic_conv1(t),
            _cubic_conv1(1.0 - t),
            _cubic_conv2(2.0 - t),
        )
        for offset, w in zip((-1, 0, 1, 2), weights):
            idx = min(max(i0 + offset, 0), n_in - 1)  # border replication
            m[d, idx] += w
    return m


def resize_features(x: jax.Array, size: tuple[int, int]) -> jax.Array:
    """F.interpolate(x, size=size, mode="bicubic", align_corners=False) for NCHW float32 `x`.

    `size` must be static (a tuple of Python ints) under jax.jit, e.g.
    `jax.jit(resize_features, static_argnames="size")`.
    """
    if x.ndim != 4:
        raise ValueError(f"expected NCHW input, got shape {x.shape}")
    out_h, out_w = (int(s) for s in size)
    _, _, in_h, in_w = x.shape
    dtype = x.dtype if jnp.issubdtype(x.dtype, jnp.floating) else jnp.float32
    mh = jnp.asarray(_bicubic_matrix(in_h, out_h), dtype)  # (out_h, H)
    mw = jnp.asarray(_bicubic_matrix(in_w, out_w), dtype)  # (out_w, W)
    x = x.astype(dtype)
    # Full float32 products: on GPU/TPU the default matmul precision would use TF32/bf16 passes.
    precision = jax.lax.Precision.HIGHEST
    y = jnp.einsum("oh,nchw->ncow", mh, x, precision=precision)
    y = jnp.einsum("pw,ncow->ncop", mw, y, precision=precision)
    return y


if __name__ == "__main__":
    # Self-check against a direct (gather-based) transcription of torch's loop, both directions.
    rng = np.random.default_rng(0)
    xin = rng.normal(size=(2, 3, 9, 7)).astype(np.float32)

    def ref(xn, size):  # float64 loop, torch's formulas applied pixel by pixel
        n, c, h, w = xn.shape
        oh, ow = size
        out = np.zeros((n, c, oh, ow))
        for o in range(oh):
            sy = (o + 0.5) * h / oh - 0.5 if h != oh else float(o)
            iy = math.floor(sy)
            ty = sy - iy
            wy = (_cubic_conv2(ty + 1), _cubic_conv1(ty), _cubic_conv1(1 - ty), _cubic_conv2(2 - ty))
            for p in range(ow):
                sx = (p + 0.5) * w / ow - 0.5 if w != ow else float(p)
                ix = math.floor(sx)
                tx = sx - ix
                wx = (_cubic_conv2(tx + 1), _cubic_conv1(tx), _cubic_conv1(1 - tx),
                      _cubic_conv2(2 - tx))
                acc = 0.0
                for a in range(4):
                    yy = min(max(iy - 1 + a, 0), h - 1)
                    for b in range(4):
                        xx = min(max(ix - 1 + b, 0), w - 1)
                        acc = acc + wy[a] * wx[b] * xn[:, :, yy, xx].astype(np.float64)
                out[:, :, o, p] = acc
        return out

    f = jax.jit(resize_features, static_argnames="size")
    for size in [(18, 14), (4, 3), (9, 7), (13, 5)]:
        got = np.asarray(f(jnp.asarray(xin), size=size))
        err = np.abs(got - ref(xin, size)).max()
        print(size, got.shape, got.dtype, f"max abs err {err:.2e}")
        assert got.shape == (2, 3) + size and got.dtype == np.float32 and err < 1e-5
