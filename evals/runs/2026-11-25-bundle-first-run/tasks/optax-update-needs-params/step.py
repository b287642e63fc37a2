"""A jitted train step that works with any Optax optimizer, including ones that read the parameters.

The error "You are using a transformation that requires the current value of parameters" comes from
calling ``tx.update(grads, opt_state)`` without the third argument. ``optax.adamw`` (weight decay),
``optax.adaptive_grad_clip`` (clips relative to the parameter norm) and ``optax.MultiSteps`` around
either of them (it hands ``params`` to the inner optimizer) all need it. Always call
``tx.update(grads, opt_state, params)``: transformations that ignore ``params`` accept it too.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import optax


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    prediction = x @ params["w"] + params["b"]
    return jnp.mean((prediction - y) ** 2)


def make_train_step(
    tx: optax.GradientTransformation,
) -> Callable[[dict, optax.OptState, jax.Array, jax.Array], tuple[dict, optax.OptState, jax.Array]]:
    """Returns a jitted ``step(params, opt_state, x, y) -> (params, opt_state, loss)``.

    ``loss`` is the loss at the parameters before the update.
    """

    @jax.jit
    def step(
        params: dict, opt_state: optax.OptState, x: jax.Array, y: jax.Array
    ) -> tuple[dict, optax.OptState, jax.Array]:
        loss, grads = jax.value_and_grad(_loss)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)  # params: the fix
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss

    return step


if __name__ == "__main__":
    kx, kw = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (32, 4))
    true_w = jnp.array([[1.0], [-2.0], [0.5], [3.0]])
    y = x @ true_w + 0.3

    for tx in (
        optax.adamw(1e-2),
        optax.MultiSteps(optax.adamw(1e-2), every_k_schedule=4),
        optax.chain(optax.adaptive_grad_clip(0.1), optax.adamw(1e-2)),
    ):
        params = {"w": jnp.zeros((4, 1)), "b": jnp.zeros((1,))}
        opt_state = tx.init(params)
        step = make_train_step(tx)
        losses = []
        for _ in range(200):
            params, opt_state, loss = step(params, opt_state, x, y)
            losses.append(float(loss))
        print(type(tx).__name__, losses[0], losses[-1])
        assert losses[-1] < losses[0]
