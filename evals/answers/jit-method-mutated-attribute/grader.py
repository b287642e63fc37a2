"""Grade `model.LinearModel.predict`: current attributes are used, and new weights do not recompile."""

import jax.numpy as jnp
import numpy as np

from grading import count_compilations

RNG = np.random.default_rng(0)


def weights(d: int = 3, k: int = 2) -> tuple[np.ndarray, np.ndarray]:
    return RNG.normal(size=(d, k)).astype(np.float32), RNG.normal(size=(k,)).astype(np.float32)


def test_predictions_match_numpy(answer):
    w, b = weights()
    x = RNG.normal(size=(4, 3)).astype(np.float32)
    got = answer.LinearModel(jnp.asarray(w), jnp.asarray(b)).predict(jnp.asarray(x))
    np.testing.assert_allclose(np.asarray(got), x @ w + b, rtol=1e-5, atol=1e-6)


def test_reassigned_attributes_are_used(answer):
    w1, b1 = weights()
    w2, b2 = weights()
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    model = answer.LinearModel(jnp.asarray(w1), jnp.asarray(b1))
    np.testing.assert_allclose(np.asarray(model.predict(jnp.asarray(x))), x @ w1 + b1, rtol=1e-5, atol=1e-6)
    model.weight, model.bias = jnp.asarray(w2), jnp.asarray(b2)
    got = np.asarray(model.predict(jnp.asarray(x)))
    assert not np.allclose(got, x @ w1 + b1), "predict still uses the old weight and bias"
    np.testing.assert_allclose(got, x @ w2 + b2, rtol=1e-5, atol=1e-6)


def test_new_weights_do_not_recompile(answer):
    x = jnp.asarray(RNG.normal(size=(6, 3)).astype(np.float32))
    models = [answer.LinearModel(*map(jnp.asarray, weights())) for _ in range(3)]
    updates = [tuple(map(jnp.asarray, weights())) for _ in range(3)]
    with count_compilations() as compiled:
        for model in models:
            model.predict(x).block_until_ready()
        for w, b in updates:
            models[0].weight, models[0].bias = w, b
            models[0].predict(x).block_until_ready()
    assert compiled.count <= 2, f"{compiled.count} XLA compilations for 6 calls with new weights of the same shapes"
