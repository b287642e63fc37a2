"""JAX port of `F.interpolate(x, size=size, mode="bicubic", align_corners=False)`.

Why not `jax.image.resize(..., "bicubic")`
-----------------------------------------
jax.image.resize uses a different cubic kernel (Keys, a = -0.5; PyTorch uses a = -0.75), it
renormalises the kernel at the borders instead of clamping indices to the edge pixel, and when
shrinking it antialiases (widens the kernel), which PyTorch's bicubic does not. So it gives different
numbers, in particular for downsampling.

PyTorch's algorithm, reproduced here per axis (separable: first along W, then along H, like
PyTorch's CPU kernel):
  scale = in_size / out_size
  src   = scale * (dst + 0.5) - 0.5          (no clamping for cubic)
  i0    = floor(src), t = src - i0           (i0 capped at in_size - 1, t clamped to [0, 1])
  taps  = i0 - 1, i0, i0 + 1, i0 + 2, each clamped to [0, in_size - 1] (edge replication)
  weights (A = -0.75):
      w0 = cc2(t + 1), w1 = cc1(t), w2 = cc1(1 - t), w3 = cc2(2 - t)
      cc1(x) = ((A + 2) x - (A + 3)) x^2 + 1,   cc2(x) = ((A x - 5A) x + 8A) x - 4A
The indices and weights depend only on the static sizes, so they are computed with NumPy at trace
time (in float32, as PyTorch does for float32 inputs).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np

_A = np.float32(-0.75)


def _cubic1(x):  # |x| <= 1
    return ((_A + np.float32(2)) * x - (_A + np.float32(3))) * x * x + np.float32(1)


def _cubic2(x):  # 1 < |x| < 2
    return ((_A * x - np.float32(5) * _A) * x + np.float32(8) * _A) * x - np.float32(4) * _A


def _indices_and_weights(in_size: int, out_size: int):
    """(out_size, 4) int32 source indices and (out_size, 4) float32 weights along one axis."""
    scale = np.float32(in_size) / np.float32(out_size)
    dst = np.arange(out_size, dtype=np.float32)
    src = scale * (dst + np.float32(0.5)) - np.float32(0.5)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    t = np.clip(src - i0.astype(np.float32), np.float32(0), np.float32(1)).astype(np.float32)

    weights = np.stack(
        [
            _cubic2(t + np.float32(1)),
            _cubic1(t),
            _cubic1(np.float32(1) - t),
            _cubic2(np.float32(2) - t),
        ],
        axis=-1,
    ).astype(np.float32)
    taps = i0[:, None] + np.arange(-1, 3)[None, :]
    taps = np.clip(taps, 0, in_size - 1).astype(np.int32)
    return taps, weights


def _interp_axis(x: jax.Array, axis: int, out_size: int) -> jax.Array:
    taps, weights = _indices_and_weights(x.shape[axis], out_size)
    bshape = [1] * x.ndim
    bshape[axis] = out_size
    out = None
    for j in range(4):  # sum in the same order as PyTorch: w0*s0 + w1*s1 + w2*s2 + w3*s3
        term = jnp.take(x, jnp.asarray(taps[:, j]), axis=axis) * jnp.asarray(
            weights[:, j]
        ).reshape(bshape)
        out = term if out is None else out + term
    return out


@functools.partial(jax.jit, static_argnames=("size",))
def _resize(x: jax.Array, size: tuple[int, int]) -> jax.Array:
    out_h, out_w = size
    x = x.astype(jnp.float32)
    x = _interp_axis(x, axis=3, out_size=out_w)  # along W (inner), for every input row
    x = _interp_axis(x, axis=2, out_size=out_h)  # then along H
    return x


def resize_features(x: jax.Array, size: tuple[int, int]) -> jax.Array:
    """x: float32 (N, C, H, W). Returns (N, C, out_h, out_w), equal to PyTorch's bicubic resize."""
    out_h, out_w = (int(s) for s in size)
    return _resize(jnp.asarray(x), (out_h, out_w))


if __name__ == "__main__":
    x = jax.random.normal(jax.random.key(0), (2, 3, 7, 9))
    print(resize_features(x, (14, 5)).shape)
    print(jnp.allclose(resize_features(x, (7, 9)), x, atol=1e-6))  # same size -> identity
