"""Repetition and presence penalties, ported from NumPy to JAX.

The subtle part: duplicate token ids
------------------------------------
In NumPy, `logits[rows, generated] *= f` and `logits[rows, generated] -= p` with fancy indexing
read the selected values once, compute, and write them back; duplicated indices just write the same
value several times. So a token generated three times is penalised ONCE.
The "obvious" JAX port `logits.at[rows, generated].multiply(f)` / `.add(-p)` applies the update once
per occurrence (scatter-multiply / scatter-add accumulate), penalising repeated tokens 2, 3, ...
times.

The faithful port marks which vocabulary entries occur at least once (a scatter-*set* of True, for
which duplicates are harmless) and applies the penalties with `jnp.where` on that mask. As in the
NumPy code, the sign test uses the original logits, the factor is 1/penalty (a multiplication by the
reciprocal, not a division) for positive logits and the penalty for the others, and the presence
penalty is subtracted after the multiplication.
"""

import jax
import jax.numpy as jnp


def apply_penalties(logits, generated, repetition_penalty, presence_penalty):
    """logits: float32 (batch, vocab); generated: int32 (batch, n) ids in [0, vocab), may repeat."""
    logits = jnp.asarray(logits)
    generated = jnp.asarray(generated)
    batch, vocab = logits.shape
    dtype = logits.dtype

    rows = jnp.arange(batch)[:, None]
    seen = jnp.zeros((batch, vocab), dtype=bool).at[rows, generated].set(True)

    if isinstance(repetition_penalty, (int, float)):
        # Python number: take the reciprocal in double precision, like NumPy does.
        inverse = 1.0 / repetition_penalty
    else:
        inverse = 1.0 / jnp.asarray(repetition_penalty, dtype)
    inverse = jnp.asarray(inverse, dtype)
    penalty = jnp.asarray(repetition_penalty, dtype)
    presence = jnp.asarray(presence_penalty, dtype)

    factor = jnp.where(logits > 0, inverse, penalty)
    penalised = logits * factor
    penalised = penalised - presence
    return jnp.where(seen, penalised, logits)


if __name__ == "__main__":
    import numpy as np

    def apply_penalties_np(logits, generated, repetition_penalty, presence_penalty):
        logits = logits.copy()
        rows = np.arange(logits.shape[0])[:, None]
        logits[rows, generated] *= np.where(logits[rows, generated] > 0,
                                            1.0 / repetition_penalty, repetition_penalty)
        logits[rows, generated] -= presence_penalty
        return logits

    rng = np.random.default_rng(0)
    logits = rng.normal(size=(4, 50)).astype(np.float32)
    generated = rng.integers(0, 10, size=(4, 12)).astype(np.int32)  # many repeats
    ref = apply_penalties_np(logits, generated, 1.5, 0.25)
    out = jax.jit(apply_penalties)(logits, generated, 1.5, 0.25)
    print(np.array_equal(np.asarray(out), ref))
