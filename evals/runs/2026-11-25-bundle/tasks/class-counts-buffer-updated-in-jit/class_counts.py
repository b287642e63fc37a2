"""Per-class example counts kept in a mutable JAX buffer (the PyTorch `register_buffer` pattern).

PyTorch:
    self.register_buffer("counts", torch.zeros(num_classes, dtype=torch.long))
    ...
    self.counts += torch.bincount(labels, minlength=num_classes)

JAX arrays are immutable, but a `jax.Ref` (created with `jax.new_ref`) is a mutable buffer that
jitted code may read and write. A jitted function that receives a Ref updates it in place and does
not return it: the compiled program aliases the Ref's buffer to its output, so no second copy of the
counts is allocated and nothing has to be threaded through arguments/returns.

(`jax.experimental.mutable_array` from older tutorials was removed; `jax.new_ref` / `jax.Ref` is the
current API.)

Usage:
    counts = make_counts(10)
    count_batch(counts, labels)          # in place, returns None
    count_batch(counts, more_labels)     # same shapes -> same compiled program
    read_counts(counts)                  # Array([...], dtype=int32)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def make_counts(num_classes: int) -> jax.Ref:
    """A mutable int32 buffer of zeros with shape (num_classes,)."""
    if num_classes < 1:
        raise ValueError(f"num_classes must be >= 1, got {num_classes}")
    return jax.new_ref(jnp.zeros((num_classes,), dtype=jnp.int32))


@jax.jit
def count_batch(counts: jax.Ref, labels: jax.Array) -> None:
    """Add the per-class occurrence counts of `labels` to `counts`, in place.

    counts: the Ref from `make_counts`; its length (a static shape) is the number of classes.
    labels: int32 array of shape (batch,), values in [0, num_classes).

    The number of classes comes from the Ref's static shape, so `jnp.bincount` gets a static
    `length` (required under jit) and every call with the same shapes reuses one compilation.
    """
    num_classes = counts.shape[0]
    batch_counts = jnp.bincount(labels, length=num_classes).astype(counts.dtype)
    counts[...] += batch_counts  # read-add-write into the Ref; nothing is returned


def read_counts(counts: jax.Ref) -> jax.Array:
    """The current counts as an immutable int32 array of shape (num_classes,).

    Returns a copy, so later in-place updates of the Ref never change (or invalidate) a snapshot
    you are holding.
    """
    return jnp.array(counts[...], dtype=jnp.int32, copy=True)


if __name__ == "__main__":
    counts = make_counts(4)
    count_batch(counts, jnp.array([0, 1, 1, 3], dtype=jnp.int32))
    snapshot = read_counts(counts)
    count_batch(counts, jnp.array([3, 3, 2, 0], dtype=jnp.int32))
    print(snapshot)              # [1 2 0 1]
    print(read_counts(counts))   # [2 2 1 3]
    print(count_batch._cache_size())  # 1: the second call reused the compilation
