"""A per-class example counter kept in a JAX mutable array reference (``jax.Ref``).

PyTorch original::

    self.register_buffer("counts", torch.zeros(num_classes, dtype=torch.int32))
    ...
    self.counts += torch.bincount(labels, minlength=num_classes)

JAX version::

    counts = make_counts(10)
    count_batch(counts, labels)      # jitted; updates `counts` in place, returns None
    count_batch(counts, labels2)     # same shapes -> same compiled executable
    read_counts(counts)              # -> immutable int32 Array of shape (10,)

How it works: a ``Ref`` created with ``jax.new_ref`` is a mutable buffer. It can be passed into a
``jax.jit``-compiled function, where ``ref[...]`` reads it and ``ref[...] = value`` writes it; the
write is applied to the caller's ref when the call completes, so nothing has to be returned or
threaded through. The ref's shape/dtype (not its contents) are part of the jit cache key, so all
calls with the same ``(num_classes,)`` counts and ``(batch,)`` labels reuse one compilation.

Notes:
* Don't ``jax.freeze`` the buffer to read it: freezing consumes the ref. ``read_counts`` takes a
  snapshot with ``ref[...]`` instead, which is an ordinary immutable ``jax.Array``.
* Refs are a newer JAX feature; transformations like ``jax.grad``/``vmap`` of functions that close
  over them have restrictions, but plain ``jit`` (as here) is fully supported.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["make_counts", "count_batch", "read_counts"]


def _new_ref(init_value: jax.Array):
    """Create a mutable array reference (jax.new_ref; older releases: mutable_array)."""
    new_ref = getattr(jax, "new_ref", None)
    if new_ref is None:  # pragma: no cover - older JAX spellings
        ref_mod = getattr(jax, "ref", None)
        new_ref = getattr(ref_mod, "new_ref", None) if ref_mod is not None else None
    if new_ref is None:  # pragma: no cover
        from jax.experimental import mutable_array as new_ref  # type: ignore[no-redef]
    return new_ref(init_value)


def make_counts(num_classes: int):
    """A JAX mutable array reference holding int32 zeros of shape (num_classes,)."""
    num_classes = int(num_classes)
    if num_classes < 1:
        raise ValueError(f"num_classes must be positive, got {num_classes}")
    return _new_ref(jnp.zeros((num_classes,), dtype=jnp.int32))


@jax.jit
def count_batch(counts, labels: jax.Array) -> None:
    """Add the per-class occurrence counts of ``labels`` to ``counts`` in place.

    ``counts``: the ref from ``make_counts``; ``labels``: int32 (batch,), values in
    [0, num_classes). Returns None; the ref itself is updated.
    """
    num_classes = counts.shape[0]  # static: part of the ref's abstract type
    labels = jnp.asarray(labels).astype(jnp.int32).reshape(-1)
    batch_counts = jnp.bincount(labels, length=num_classes).astype(jnp.int32)
    counts[...] = counts[...] + batch_counts
    return None


def read_counts(counts) -> jax.Array:
    """Snapshot of the current counts: an immutable int32 array of shape (num_classes,)."""
    value = counts[...]
    return jnp.array(value, dtype=jnp.int32, copy=True)
