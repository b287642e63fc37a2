"""Per-class example counts kept in a JAX mutable array reference (jax.Ref), updated inside jit.

PyTorch original:
    self.register_buffer("counts", torch.zeros(num_classes, dtype=torch.long))
    ...
    self.counts += torch.bincount(labels, minlength=num_classes)

In JAX arrays are immutable, but a ``jax.Ref`` (created with ``jax.new_ref``; jax 0.12.0.1 -- the old
``jax.experimental.mutable_array`` is gone) is a buffer that traced code may read and write. A
jitted function that receives a Ref updates it in place and need not return it: the compiled
program aliases the Ref's buffer to an output, so no new buffer is handed back to you.

Rules to keep in mind:
- a jitted function cannot *return* a Ref, and the same Ref cannot be passed as two arguments of
  one call;
- read the value with ``counts[...]`` (``jax.freeze`` would invalidate the Ref).
"""

import jax
import jax.numpy as jnp

__all__ = ["make_counts", "count_batch", "read_counts"]


def make_counts(num_classes: int) -> jax.Ref:
    """A mutable array reference holding int32 zeros of shape (num_classes,)."""
    return jax.new_ref(jnp.zeros((num_classes,), dtype=jnp.int32))


@jax.jit
def count_batch(counts: jax.Ref, labels: jax.Array) -> None:
    """Add the per-class occurrences in ``labels`` to ``counts`` in place.

    labels: int32 (batch,), values in [0, num_classes). ``num_classes`` comes from the Ref's static
    shape, so ``bincount`` has a fixed output length (as ``minlength`` fixes it in PyTorch) and the
    function compiles once per (num_classes, batch) pair; further calls with the same shapes reuse
    that compilation.
    """
    current = counts[...]  # read the buffer (a traced int32 array of shape (num_classes,))
    seen = jnp.bincount(labels, length=current.shape[0]).astype(jnp.int32)
    counts[...] = current + seen  # write back into the same buffer, in place


def read_counts(counts: jax.Ref) -> jax.Array:
    """The current counts as an immutable int32 array of shape (num_classes,).

    ``counts[...]`` reads the Ref; the explicit copy makes the result a snapshot that owns its own
    buffer, so later in-place ``count_batch`` updates (which reuse the Ref's buffer) cannot touch it.
    """
    return jnp.array(counts[...], dtype=jnp.int32, copy=True)


if __name__ == "__main__":
    counts = make_counts(4)
    count_batch(counts, jnp.array([0, 1, 1, 3], dtype=jnp.int32))
    count_batch(counts, jnp.array([3, 3, 2, 1], dtype=jnp.int32))
    print(read_counts(counts))  # [1 3 1 3]
