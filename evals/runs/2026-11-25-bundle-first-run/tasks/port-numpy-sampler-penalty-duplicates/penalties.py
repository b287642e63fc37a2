"""Repetition and presence penalties, ported from NumPy to JAX with NumPy's duplicate-index semantics.

The trap is in duplicate token ids. In NumPy, ``logits[rows, generated] *= w`` and
``logits[rows, generated] -= p`` are *buffered*: the indexed values are read once, updated, and
written back, so a token generated three times is penalised ONCE by each statement (every duplicate
writes the same value). The obvious JAX port, ``logits.at[rows, generated].multiply(w)`` /
``.add(-p)``, is unbuffered: it applies the update once per occurrence (penalty**3, 3 * p), like
``np.multiply.at`` / ``np.add.at``, and the sampler's output changes silently.

The faithful port reads, computes, then writes with ``.at[...].set(...)``: duplicates all write the
same value, exactly as NumPy does. Both statements are kept separate, in the same order, because
the presence penalty is applied to the already-scaled logits.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def apply_penalties(logits: jax.Array, generated: jax.Array, repetition_penalty, presence_penalty) -> jax.Array:
    """CTRL-style repetition penalty, then presence penalty, once per distinct generated token.

    logits: float32 (batch, vocab); generated: int32 (batch, n) token ids in [0, vocab), possibly
    repeated within a row. Penalties: Python floats or scalar arrays (may be traced under jit).
    Returns float32 (batch, vocab), equal to the NumPy function.
    """
    logits = jnp.asarray(logits, jnp.float32)
    generated = jnp.asarray(generated, jnp.int32)
    rows = jnp.arange(logits.shape[0])[:, None]  # (batch, 1), broadcasts against (batch, n)

    if isinstance(repetition_penalty, (int, float)):
        # A concrete Python float: form 1 / penalty in double precision, as NumPy does, then round.
        inverse = jnp.float32(1.0 / repetition_penalty)
    else:
        inverse = 1.0 / jnp.asarray(repetition_penalty, jnp.float32)
    penalty = jnp.asarray(repetition_penalty, jnp.float32)

    # logits[rows, generated] *= where(logits[rows, generated] > 0, 1 / rp, rp)   (buffered)
    picked = logits[rows, generated]
    scaled = picked * jnp.where(picked > 0, inverse, penalty)
    logits = logits.at[rows, generated].set(scaled)  # duplicates write the same value: once

    # logits[rows, generated] -= presence_penalty                                  (buffered)
    picked = logits[rows, generated]
    logits = logits.at[rows, generated].set(picked - jnp.asarray(presence_penalty, jnp.float32))
    return logits


if __name__ == "__main__":
    import numpy as np

    def apply_penalties_np(logits, generated, repetition_penalty, presence_penalty):
        logits = logits.copy()
        rows = np.arange(logits.shape[0])[:, None]
        logits[rows, generated] *= np.where(logits[rows, generated] > 0, 1.0 / repetition_penalty, repetition_penalty)
        logits[rows, generated] -= presence_penalty
        return logits

    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4, 50)).astype(np.float32)
    generated = np.array([[3, 3, 3, 7], [0, 1, 0, 1], [49, 2, 2, 49], [5, 6, 7, 8]], np.int32)
    for rp, pp in [(2.0, 0.5), (1.3, 0.25)]:
        ref = apply_penalties_np(logits, generated, rp, pp)
        got = np.asarray(apply_penalties(logits, generated, rp, pp))
        jitted = np.asarray(jax.jit(apply_penalties)(logits, generated, rp, pp))
        print(rp, pp, np.abs(got - ref).max(), np.abs(jitted - ref).max())
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(jitted, ref, rtol=1e-6, atol=1e-6)
    # Exact when the penalties are float32 (NumPy then computes in float32 too).
    rp32, pp32 = np.float32(1.3), np.float32(0.25)
    np.testing.assert_array_equal(
        np.asarray(jax.jit(apply_penalties)(logits, generated, rp32, pp32)),
        apply_penalties_np(logits, generated, rp32, pp32),
    )
