"""Grade `precise_stats.precise_variance`: float64 inside one function, 64-bit mode off around it."""

import jax
import jax.numpy as jnp
import numpy as np


def readings(n: int, seed: int) -> np.ndarray:
    return 1e8 + np.random.default_rng(seed).normal(size=n)  # float64; float32 spacing at 1e8 is 8


def x64_is_off() -> bool:
    return jnp.asarray(np.float64(1.0)).dtype == jnp.float32


def test_variance_in_double_precision(answer):
    assert x64_is_off()
    for n, seed in ((1000, 0), (257, 1)):
        samples = readings(n, seed)
        result = answer.precise_variance(samples)
        assert isinstance(result, jax.Array) and result.shape == ()
        assert result.dtype == jnp.float64, f"dtype {result.dtype}: not computed in float64"
        np.testing.assert_allclose(float(result), np.var(samples), rtol=1e-8)


def test_64_bit_mode_is_off_after_the_call(answer):
    answer.precise_variance(readings(100, 2))
    assert x64_is_off(), "64-bit mode is still on after the call: the whole program now runs in float64"
    assert (jnp.ones(3) * 2.0).dtype == jnp.float32
