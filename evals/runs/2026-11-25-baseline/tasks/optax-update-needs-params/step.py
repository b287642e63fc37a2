"""A jitted train step that works with any Optax optimizer.

Some Optax transformations need the current parameters inside `update`: AdamW's decoupled weight
decay (`add_decayed_weights`), adaptive gradient clipping (`adaptive_grad_clip`), and any wrapper
around them such as `optax.MultiSteps`. The fix is to always call
`tx.update(grads, opt_state, params)`; optimizers that do not need the parameters simply ignore them.
"""

import jax
import jax.numpy as jnp
import optax


def _loss_fn(params, x, y):
    prediction = x @ params["w"] + params["b"]
    return jnp.mean((prediction - y) ** 2)


def make_train_step(tx):
    """Returns a jitted step(params, opt_state, x, y) -> (params, opt_state, loss)."""

    @jax.jit
    def step(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(_loss_fn)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)  # always pass params
        params = optax.apply_updates(params, updates)
        return params, opt_state, loss

    return step


if __name__ == "__main__":
    key_w, key_x = jax.random.split(jax.random.key(0))
    params = {"w": jax.random.normal(key_w, (3, 2)), "b": jnp.zeros(2)}
    x = jax.random.normal(key_x, (16, 3))
    y = x @ jnp.ones((3, 2))
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
