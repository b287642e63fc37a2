"""Grade `sweep.fit`: Adam's results, and one compilation for a whole learning-rate sweep."""

import jax
import jax.numpy as jnp
import numpy as np
import optax

from grading import count_compilations


def problem(d: int = 6, k: int = 3, n: int = 32) -> tuple[dict, jax.Array, jax.Array]:
    rng = np.random.default_rng(0)
    params = {"w": jnp.asarray(rng.normal(size=(d, k)) / 3, jnp.float32), "b": jnp.zeros((k,), jnp.float32)}
    return params, jnp.asarray(rng.normal(size=(n, d)), jnp.float32), jnp.asarray(rng.normal(size=(n, k)), jnp.float32)


def expected_fit(params: dict, x: jax.Array, y: jax.Array, learning_rate: float, num_steps: int):
    """An eager optax loop: no jit, so nothing to compare but the numbers."""
    tx = optax.adam(learning_rate)
    state, losses = tx.init(params), []

    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    for _ in range(num_steps):
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, state = tx.update(grads, state, params)
        params = optax.apply_updates(params, updates)
        losses.append(loss)
    return params, np.array(losses)


def test_results_match_an_optax_loop(answer):
    params, x, y = problem()
    for learning_rate in (1e-2, 5e-2):
        want_params, want_losses = expected_fit(params, x, y, learning_rate, 6)
        got_params, got_losses = answer.fit(params, x, y, learning_rate, 6)
        assert np.asarray(got_losses).shape == (6,)
        np.testing.assert_allclose(np.asarray(got_losses), want_losses, rtol=1e-5)
        jax.tree.map(lambda a, b: np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-6), got_params, want_params)


def test_a_learning_rate_sweep_compiles_once(answer):
    params, x, y = problem()
    jax.block_until_ready(answer.fit(params, x, y, 1e-3, 20))  # warm-up: compiles
    with count_compilations() as compiled:
        for learning_rate in (3e-3, 1e-2, 3e-2):
            jax.block_until_ready(answer.fit(params, x, y, learning_rate, 20))
    assert compiled.count <= 1, f"{compiled.count} XLA compilations for 3 more learning rates: the rate is compiled into the program"
