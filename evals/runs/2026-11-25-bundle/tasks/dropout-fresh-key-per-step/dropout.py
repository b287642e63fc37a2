"""Inverted dropout with a fresh random mask at every step, reproducible from one seed key.

Why the same units were dropped at every step: JAX has no global random state. A sampling function
such as `jax.random.bernoulli(key, ...)` is a pure function of its key, so calling it with the same
key at every step returns the same mask every time. The fix is to derive a new key per step from the
seed key (`jax.random.split` or `jax.random.fold_in`) and use each derived key exactly once.

Here `dropout_steps` splits the seed key into one key per step and applies dropout with each:
different masks across steps, and the same rows every time for the same seed key. In a real
training loop, do the same per step:

    key = jax.random.key(0)
    for step in range(num_steps):
        key, drop_key = jax.random.split(key)       # new key each step; drop_key used once
        params, ... = train_step(params, drop_key, batch)

(or `drop_key = jax.random.fold_in(key, step)` without carrying the key).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def dropout(key: jax.Array, x: jax.Array, rate: float) -> jax.Array:
    """Inverted dropout: each element is 0 with probability `rate`, otherwise x / (1 - rate).

    The expectation of the output equals x, so no rescaling is needed at evaluation time (where you
    simply skip dropout). `rate` must be in [0, 1].
    """
    x = jnp.asarray(x)
    if isinstance(rate, (int, float)):
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"rate must be in [0, 1], got {rate}")
        if rate == 0.0:
            return x
        if rate == 1.0:
            return jnp.zeros_like(x)  # everything dropped (avoids dividing by 0)
    keep_prob = 1.0 - rate
    keep = jax.random.bernoulli(key, keep_prob, x.shape)
    return jnp.where(keep, x / keep_prob, jnp.zeros_like(x)).astype(x.dtype)


def dropout_steps(key: jax.Array, x: jax.Array, num_steps: int, rate: float) -> jax.Array:
    """Apply dropout to x at `num_steps` steps, each with its own mask.

    Returns shape (num_steps, *x.shape); row t is dropout(key_t, x, rate) with
    key_t = jax.random.split(key, num_steps)[t]. The same `key` (a typed key from
    jax.random.key) gives the same rows; different steps get independent masks.
    """
    step_keys = jax.random.split(key, num_steps)  # one independent key per step
    return jax.vmap(lambda k: dropout(k, x, rate))(step_keys)


if __name__ == "__main__":
    x = jnp.ones((2, 5))
    rows = dropout_steps(jax.random.key(0), x, num_steps=4, rate=0.5)
    print(rows)  # entries are 0 or 2, with a different pattern in each row
    again = dropout_steps(jax.random.key(0), x, num_steps=4, rate=0.5)
    assert jnp.array_equal(rows, again)              # reproducible from the seed key
    assert not jnp.array_equal(rows[0], rows[1])     # different masks per step (with high prob.)
    jitted = jax.jit(dropout_steps, static_argnames=("num_steps",))
    assert jnp.array_equal(jitted(jax.random.key(0), x, num_steps=4, rate=0.5), rows)
