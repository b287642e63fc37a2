"""Grade `accumulate.make_accumulating_optimizer`: k micro-batch calls equal one large-batch Adam step."""

import jax
import jax.numpy as jnp
import numpy as np
import optax

K, MICRO, LEARNING_RATE = 3, 4, 0.1


def loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def batches() -> list[tuple[jax.Array, jax.Array]]:
    """Two large batches of K * MICRO examples."""
    keys = jax.random.split(jax.random.key(11), 4)
    return [
        (jax.random.normal(keys[2 * i], (K * MICRO, 5)), jax.random.normal(keys[2 * i + 1], (K * MICRO,)))
        for i in range(2)
    ]


def initial() -> dict:
    return {"w": jax.random.normal(jax.random.key(5), (5,)), "b": jnp.zeros(())}


def large_batch_run() -> dict:
    tx = optax.adam(LEARNING_RATE)
    params = initial()
    state = tx.init(params)
    for x, y in batches():
        updates, state = tx.update(jax.grad(loss)(params, x, y), state, params)
        params = optax.apply_updates(params, updates)
    return params


def test_micro_batches_equal_large_batches(answer):
    tx = answer.make_accumulating_optimizer(LEARNING_RATE, K)
    params = initial()
    state = tx.init(params)

    @jax.jit
    def micro_step(params, state, x, y):
        updates, state = tx.update(jax.grad(loss)(params, x, y), state, params)
        return optax.apply_updates(params, updates), state

    for x, y in batches():
        cycle_start = params
        for i in range(K):
            part = slice(i * MICRO, (i + 1) * MICRO)
            params, state = micro_step(params, state, x[part], y[part])
            if i < K - 1:
                assert jax.tree.all(jax.tree.map(jnp.array_equal, params, cycle_start)), "updated before the k-th call"

    want = large_batch_run()
    for name in ("w", "b"):
        np.testing.assert_allclose(np.asarray(params[name]), np.asarray(want[name]), rtol=1e-5, atol=1e-6)
