"""A jitted train step that works with any Optax optimizer.

Transformations that read the parameters (weight decay in `optax.adamw`, `optax.adaptive_grad_clip`,
and `optax.MultiSteps` around either, which hands its `params` to the inner optimizer) need them as
the third argument of `update`. Without it AdamW / MultiSteps raise "You are using a transformation
that requires the current value of parameters", and `adaptive_grad_clip` a TypeError or the same
ValueError inside a chain. Always passing `params` is correct for every Optax optimizer: those that
do not need it ignore it.
"""

import jax
import jax.numpy as jnp
import optax


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    prediction = x @ params["w"] + params["b"]
    return jnp.mean((prediction - y) ** 2)


def make_train_step(tx: optax.GradientTransformation):
    """Returns step(params, opt_state, x, y) -> (params, opt_state, loss before the update), jitted."""

    @jax.jit
    def step(params: dict, opt_state, x: jax.Array, y: jax.Array):
        loss, grads = jax.value_and_grad(_loss)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)  # params: required by adamw, AGC, MultiSteps
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss

    return step


if __name__ == "__main__":
    kx, kw = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (16, 3))
    y = x @ jnp.array([1.0, -2.0, 0.5]) + 0.3
    params = {"w": jax.random.normal(kw, (3,)), "b": jnp.zeros(())}
    for tx in (
        optax.adamw(1e-2),
        optax.MultiSteps(optax.adamw(1e-2), every_k_schedule=4),
        optax.chain(optax.adaptive_grad_clip(0.1), optax.adamw(1e-2)),
    ):
        step = make_train_step(tx)
        p, s = params, tx.init(params)
        for _ in range(8):
            p, s, loss = step(p, s, x, y)
        print(type(tx).__name__, float(loss))
