"""The natural port: `x[idx] *= v` becomes x.at[idx].multiply(v), `x[idx] -= p` becomes x.at[idx].add(-p)."""

import jax
import jax.numpy as jnp


@jax.jit
def apply_penalties(logits: jax.Array, generated: jax.Array, repetition_penalty, presence_penalty) -> jax.Array:
    rows = jnp.arange(logits.shape[0])[:, None]
    factor = jnp.where(logits[rows, generated] > 0, 1.0 / repetition_penalty, repetition_penalty)
    logits = logits.at[rows, generated].multiply(factor)
    logits = logits.at[rows, generated].add(-presence_penalty)
    return logits
