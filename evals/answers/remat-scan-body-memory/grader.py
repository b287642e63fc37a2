"""Grade `deepmlp.loss`: same gradient as plain scan, far less compiled temporary memory."""

import jax
import jax.numpy as jnp
import numpy as np


def block(h: jax.Array, w: tuple[jax.Array, jax.Array]) -> jax.Array:
    w1, w2 = w
    return h + jax.nn.gelu(h @ w1) @ w2


def plain_loss(params, x):
    """The model without any remat: the baseline for values and memory."""
    out, _ = jax.lax.scan(lambda h, w: (block(h, w), None), x, params)
    return jnp.mean(out**2)


def problem(depth: int = 8, batch: int = 64, width: int = 32):
    k1, k2, kx = jax.random.split(jax.random.key(0), 3)
    w1 = jax.random.normal(k1, (depth, width, 4 * width)) / np.sqrt(width)
    w2 = jax.random.normal(k2, (depth, 4 * width, width)) / np.sqrt(4 * width)
    return (w1, w2), jax.random.normal(kx, (batch, width))


def temp_bytes(fn, *args) -> int:
    return jax.jit(jax.grad(fn)).lower(*args).compile().memory_analysis().temp_size_in_bytes


def test_same_value_and_gradient(answer):
    params, x = problem()
    np.testing.assert_allclose(float(answer.loss(params, x)), float(plain_loss(params, x)), rtol=1e-5)
    got, want = jax.grad(answer.loss)(params, x), jax.grad(plain_loss)(params, x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-4, atol=1e-6)


def test_gradient_needs_far_less_temporary_memory(answer):
    params, x = problem()
    baseline, remat = temp_bytes(plain_loss, params, x), temp_bytes(answer.loss, params, x)
    assert remat * 3 < baseline, f"temp bytes {remat} vs {baseline} without remat: the residuals are still stacked"
