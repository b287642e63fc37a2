"""Grade `penalties`: the JAX port returns what the NumPy sampler step returns, repeats included.

The reference is the user's NumPy function itself, run in float64: NumPy's `x[idx] op= v` with fancy
indices is buffered (gather, compute, scatter), so a token id that appears several times in a row is
penalised once.
"""

import jax
import jax.numpy as jnp
import numpy as np

VOCAB = 12


def numpy_apply_penalties(logits, generated, repetition_penalty, presence_penalty):
    logits = logits.copy()
    rows = np.arange(logits.shape[0])[:, None]
    logits[rows, generated] *= np.where(logits[rows, generated] > 0, 1.0 / repetition_penalty, repetition_penalty)
    logits[rows, generated] -= presence_penalty
    return logits


def inputs(seed: int, batch: int = 3, n: int = 10, repeats: bool = True):
    rng = np.random.default_rng(seed)
    logits = (rng.normal(size=(batch, VOCAB)) * 3.0).astype(np.float32)
    if repeats:
        generated = rng.integers(0, 5, size=(batch, n))  # 10 draws from 5 ids: many repeats
        generated[0, :5] = 3  # one token generated five times
    else:
        generated = np.stack([rng.permutation(VOCAB)[:n] for _ in range(batch)])
    return logits, generated.astype(np.int32)


def check(got, logits, generated, rp, pp, what):
    want = numpy_apply_penalties(logits.astype(np.float64), generated, rp, pp)
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape}"
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    worst = np.unravel_index(np.argmax(err), err.shape)
    count = int(np.sum(generated[worst[0]] == worst[1]))
    assert err.max() < 1e-5, (
        f"{what}: logits[{worst[0]}, {worst[1]}] is {got[worst]:.4f}, NumPy gives {want[worst]:.4f} "
        f"(token {worst[1]} appears {count} times in that row; NumPy penalises it once)"
    )


def test_repeated_tokens_are_penalised_once(answer):
    logits, generated = inputs(0)
    got = answer.apply_penalties(jnp.asarray(logits), jnp.asarray(generated), 1.3, 0.5)
    assert got.dtype == jnp.float32
    check(got, logits, generated, 1.3, 0.5, "eager call")


def test_under_jit_with_traced_penalties(answer):
    logits, generated = inputs(1, batch=4, n=16)
    jitted = jax.jit(answer.apply_penalties)
    for rp, pp in ((1.2, 0.0), (2.0, 1.0)):
        got = jitted(jnp.asarray(logits), jnp.asarray(generated), jnp.float32(rp), jnp.float32(pp))
        check(got, logits, generated, rp, pp, f"jitted, repetition_penalty={rp}, presence_penalty={pp}")


def test_rows_without_repeats(answer):
    logits, generated = inputs(2, repeats=False, n=6)
    got = answer.apply_penalties(jnp.asarray(logits), jnp.asarray(generated), 1.5, 0.25)
    check(got, logits, generated, 1.5, 0.25, "no repeated tokens")
