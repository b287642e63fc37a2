"""Grade `dropout.dropout_steps`: a new mask at every step, reproducible from the key, no key reused."""

import jax
import jax.numpy as jnp
import numpy as np

RATE, STEPS = 0.25, 6
X = jnp.asarray(np.linspace(1.0, 2.0, 256, dtype=np.float32))


def test_dropout_values_are_zero_or_scaled(answer):
    out = np.asarray(answer.dropout(jax.random.key(0), X, RATE))
    kept = out != 0
    np.testing.assert_allclose(out[kept], np.asarray(X)[kept] / (1 - RATE), rtol=1e-6)
    assert 0.6 < kept.mean() < 0.9, f"kept fraction {kept.mean():.2f} for rate {RATE}"


def test_every_step_has_its_own_mask(answer):
    rows = np.asarray(answer.dropout_steps(jax.random.key(1), X, STEPS, RATE))
    assert rows.shape == (STEPS, X.shape[0])
    masks = {tuple(row != 0) for row in rows}
    assert len(masks) == STEPS, f"{STEPS} steps but only {len(masks)} distinct dropout masks: a key is reused"
    kept = (rows != 0).mean()
    assert abs(kept - (1 - RATE)) < 0.05, f"kept fraction {kept:.3f}, expected about {1 - RATE}"


def test_reproducible_from_the_key(answer):
    first = np.asarray(answer.dropout_steps(jax.random.key(2), X, STEPS, RATE))
    again = np.asarray(answer.dropout_steps(jax.random.key(2), X, STEPS, RATE))
    other = np.asarray(answer.dropout_steps(jax.random.key(3), X, STEPS, RATE))
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other), "another key gives the same masks"


def test_no_key_is_consumed_twice(answer):
    with jax.debug_key_reuse(True):
        rows = answer.dropout_steps(jax.random.key(4), X, STEPS, RATE)
    assert jnp.asarray(rows).shape == (STEPS, X.shape[0])
