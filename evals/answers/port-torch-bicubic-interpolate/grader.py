"""Grade `resize_features`: F.interpolate(mode="bicubic", align_corners=False) reproduced in JAX.

The reference is PyTorch's bicubic resampling written out in float64 NumPy: for output index d the
source coordinate is (d + 0.5) * in / out - 0.5 (align_corners=False, not clamped), the four taps
i0 - 1 .. i0 + 2 are weighted by the cubic convolution kernel with A = -0.75, indices outside the
image are clamped to the border, and there is no antialiasing when downsampling.
"""

import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

A = -0.75


def cubic(z: float) -> float:
    z = abs(z)
    if z <= 1:
        return ((A + 2) * z - (A + 3)) * z * z + 1
    if z < 2:
        return ((A * z - 5 * A) * z + 8 * A) * z - 4 * A
    return 0.0


def torch_bicubic_matrix(n_in: int, n_out: int) -> np.ndarray:
    scale = n_in / n_out
    m = np.zeros((n_out, n_in))
    for d in range(n_out):
        s = (d + 0.5) * scale - 0.5
        i0 = math.floor(s)
        t = s - i0
        for offset, weight in zip((-1, 0, 1, 2), (cubic(t + 1), cubic(t), cubic(1 - t), cubic(2 - t))):
            m[d, min(max(i0 + offset, 0), n_in - 1)] += weight
    return m


def torch_interpolate_bicubic(x: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    rows = torch_bicubic_matrix(x.shape[2], size[0])
    cols = torch_bicubic_matrix(x.shape[3], size[1])
    return np.einsum("oh,nchw,pw->ncop", rows, x, cols)


def check(answer, x: np.ndarray, size: tuple[int, int], what: str) -> None:
    x32 = x.astype(np.float32)
    got = answer.resize_features(jnp.asarray(x32), size)
    assert got.shape == x.shape[:2] + size, f"{what}: shape {got.shape}"
    assert got.dtype == jnp.float32, f"{what}: dtype {got.dtype}"
    want = torch_interpolate_bicubic(x32.astype(np.float64), size)
    err = float(np.max(np.abs(np.asarray(got, np.float64) - want)))
    assert err < 1e-5, f"{what}: max abs error {err:.2e} against F.interpolate(mode='bicubic', align_corners=False)"


def test_the_threads_upsampling_example(answer):
    x = (np.arange(10.0).reshape(1, 1, 2, 5)) / 9.0
    check(answer, x, (4, 10), "2x5 -> 4x10 (the issue's example)")


def test_upsampling_random_features(answer):
    x = np.random.default_rng(0).normal(size=(2, 3, 5, 6))
    check(answer, x, (11, 13), "5x6 -> 11x13")


def test_downsampling_has_no_antialiasing(answer):
    x = np.random.default_rng(1).normal(size=(2, 3, 12, 12))
    check(answer, x, (5, 7), "12x12 -> 5x7")


def test_works_under_jit(answer):
    x = np.random.default_rng(2).normal(size=(1, 2, 6, 4)).astype(np.float32)
    jitted = jax.jit(partial(answer.resize_features, size=(9, 3)))
    got = np.asarray(jitted(jnp.asarray(x)), np.float64)
    want = torch_interpolate_bicubic(x.astype(np.float64), (9, 3))
    assert float(np.max(np.abs(got - want))) < 1e-5
