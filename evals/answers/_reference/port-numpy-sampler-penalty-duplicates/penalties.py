"""NumPy's buffered `logits[rows, generated] op= v` in JAX: gather, compute, then `.at[].set`.

`.at[idx].multiply/add` apply the update once per occurrence of an index (like np.multiply.at);
NumPy's in-place fancy indexing applies it once per distinct index. With .set every duplicate writes
the same value, which is NumPy's result.
"""

import jax
import jax.numpy as jnp


@jax.jit
def apply_penalties(logits: jax.Array, generated: jax.Array, repetition_penalty, presence_penalty) -> jax.Array:
    rows = jnp.arange(logits.shape[0])[:, None]
    scores = logits[rows, generated]
    factor = jnp.where(scores > 0, 1.0 / repetition_penalty, repetition_penalty)
    logits = logits.at[rows, generated].set((scores * factor).astype(logits.dtype))
    logits = logits.at[rows, generated].set((logits[rows, generated] - presence_penalty).astype(logits.dtype))
    return logits
