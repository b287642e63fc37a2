"""Grade `step.make_train_step`: a train step that passes `params` to Optax, so AdamW, MultiSteps and AGC work."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

STEPS = 3


def loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def optimizers() -> dict:
    """Transformations that read the parameters (weight decay, adaptive clipping)."""
    return {
        "adamw": lambda: optax.adamw(0.05, weight_decay=0.1),
        "multisteps_adamw": lambda: optax.MultiSteps(optax.adamw(0.05, weight_decay=0.1), every_k_schedule=2),
        "agc_sgd": lambda: optax.chain(optax.adaptive_grad_clip(0.05), optax.sgd(0.1)),
    }


def problem() -> tuple[dict, jax.Array, jax.Array]:
    kw, kx, ky = jax.random.split(jax.random.key(2), 3)
    params = {"w": jax.random.normal(kw, (4,)), "b": jnp.ones(())}
    return params, jax.random.normal(kx, (8, 4)), jax.random.normal(ky, (8,))


def reference(tx, params: dict, x: jax.Array, y: jax.Array) -> tuple[dict, list[float]]:
    state, losses = tx.init(params), []
    for _ in range(STEPS):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        updates, state = tx.update(grads, state, params)
        params = optax.apply_updates(params, updates)
        losses.append(float(value))
    return params, losses


@pytest.mark.parametrize("name", list(optimizers()))
def test_step_matches_optax_with_params(answer, name):
    params, x, y = problem()
    want, want_losses = reference(optimizers()[name](), params, x, y)

    tx = optimizers()[name]()
    step = answer.make_train_step(tx)
    state, losses = tx.init(params), []
    for _ in range(STEPS):
        params, state, value = step(params, state, x, y)
        losses.append(float(value))

    np.testing.assert_allclose(losses, want_losses, rtol=1e-5)
    for key in ("w", "b"):
        np.testing.assert_allclose(np.asarray(params[key]), np.asarray(want[key]), rtol=1e-5, atol=1e-7)
