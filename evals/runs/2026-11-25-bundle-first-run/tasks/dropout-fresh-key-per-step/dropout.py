"""Inverted dropout with a fresh random mask at every step, reproducible from one seed key.

Why every step dropped the same units: JAX has no global random state, and the same key always gives
the same numbers. A key created once outside the loop (or re-created inside the step from a constant
seed) and passed to ``jax.random.bernoulli`` at every step gives the same mask every time. The fix is
to carry one key through the loop and split a fresh sub-key off it for every step; each sub-key is
used once. The whole sequence is still reproducible: the same seed key gives the same masks.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp


def dropout(key: jax.Array, x: jax.Array, rate: float) -> jax.Array:
    """Inverted dropout: each element is 0 with probability ``rate``, otherwise ``x / (1 - rate)``.

    ``key`` is consumed by this call: do not pass the same key again for a different step.
    """
    keep_prob = 1.0 - rate
    keep = jax.random.bernoulli(key, keep_prob, x.shape)
    # jnp.where, not a boolean index: the shape stays static, so this works under jit/vmap/scan.
    return jnp.where(keep, x / keep_prob, jnp.zeros_like(x))


@partial(jax.jit, static_argnames=("num_steps",))
def dropout_steps(key: jax.Array, x: jax.Array, num_steps: int, rate: float) -> jax.Array:
    """Apply dropout to ``x`` at ``num_steps`` steps, each with its own mask.

    Returns an array of shape ``(num_steps, *x.shape)``; row t is step t. ``key`` is a typed key from
    ``jax.random.key``; the same key gives the same rows. The loop is a ``lax.scan`` that carries the
    key and splits a fresh, once-used step key off it at every step.
    """

    def step(carry_key, _):
        carry_key, step_key = jax.random.split(carry_key)  # carry one key, consume the other
        return carry_key, dropout(step_key, x, rate)

    _, rows = jax.lax.scan(step, key, xs=None, length=num_steps)
    return rows


if __name__ == "__main__":
    x = jnp.ones(64)
    rows = dropout_steps(jax.random.key(0), x, 4, 0.5)
    assert rows.shape == (4, 64)
    assert not jnp.array_equal(rows[0], rows[1]) and not jnp.array_equal(rows[1], rows[2])
    assert set(jnp.unique(rows).tolist()) <= {0.0, 2.0}
    assert jnp.array_equal(rows, dropout_steps(jax.random.key(0), x, 4, 0.5))  # reproducible
    print("kept fraction per step:", (rows != 0).mean(axis=1))
