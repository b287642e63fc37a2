"""Mid-2025 form: the experimental mutable_array constructor (jax.new_ref since)."""

import jax
import jax.numpy as jnp
from jax.experimental import mutable_array


def make_counts(num_classes: int):
    return mutable_array(jnp.zeros((num_classes,), jnp.int32))


@jax.jit
def count_batch(counts, labels: jax.Array) -> None:
    counts[...] += jnp.bincount(labels, length=counts.shape[0]).astype(jnp.int32)


def read_counts(counts) -> jax.Array:
    return counts[...]
