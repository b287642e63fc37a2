"""Repetition and presence penalties, ported from NumPy to JAX (jit-compatible).

The NumPy original uses fancy-index augmented assignment, `logits[rows, generated] *= ...` and
`logits[rows, generated] -= ...`. That is buffered: NumPy gathers the values, computes, and writes them
back, so a token that occurs several times in a row of `generated` is penalised ONCE (every duplicate
writes the same value). The direct JAX translation, `logits.at[rows, generated].multiply(...)` /
`.add(-presence_penalty)`, applies the update once per occurrence (like `np.multiply.at`), so a token
generated three times would be divided by the penalty three times and lose 3 * presence_penalty.

So the port first builds a (batch, vocab) mask of "generated at least once" (a scatter of True, for
which duplicates are harmless), then applies both penalties once where the mask is set:

    penalised = logits * where(logits > 0, 1 / repetition_penalty, repetition_penalty) - presence_penalty

The sign test uses the original logits and the multiplication uses the reciprocal, exactly as the NumPy
code does (multiplying by 1/p, not dividing by p, which can differ in the last bit).

Arithmetic is float32 (JAX's default precision). Given float32 penalties the result is bit-for-bit
NumPy's; with Python-float penalties NumPy computes the product in float64 before storing it in the
float32 array, so an occasional element can differ by one float32 ulp.
"""

import jax
import jax.numpy as jnp


@jax.jit
def apply_penalties(logits: jax.Array, generated: jax.Array, repetition_penalty, presence_penalty) -> jax.Array:
    """logits float32 (batch, vocab); generated int32 (batch, n) token ids, may repeat within a row."""
    logits = jnp.asarray(logits, jnp.float32)
    generated = jnp.asarray(generated, jnp.int32)
    repetition_penalty = jnp.asarray(repetition_penalty, jnp.float32)
    presence_penalty = jnp.asarray(presence_penalty, jnp.float32)

    batch = logits.shape[0]
    rows = jnp.arange(batch)[:, None]
    # True at (b, t) if token t appears anywhere in generated[b]; duplicates set the same True.
    seen = jnp.zeros(logits.shape, jnp.bool_).at[rows, generated].set(True)

    factor = jnp.where(logits > 0, 1.0 / repetition_penalty, repetition_penalty)
    penalised = logits * factor - presence_penalty
    return jnp.where(seen, penalised, logits)


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
    generated = rng.integers(0, 10, size=(4, 12)).astype(np.int32)  # many repeats
    rp, pp = np.float32(1.3), np.float32(0.5)
    ref = apply_penalties_np(logits, generated, rp, pp)
    got = np.asarray(apply_penalties(logits, generated, rp, pp))
    print("max |diff| =", float(np.max(np.abs(got - ref))), "bitwise equal:", bool(np.array_equal(got, ref)))
