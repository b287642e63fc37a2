"""Optax equivalent of `torch.optim.Adam(params, lr=lr, weight_decay=wd)`.

`weight_decay` in torch.optim.Adam is *L2 regularisation coupled to the gradient*, not AdamW's
decoupled decay: before the Adam moments are updated, torch does `grad = grad + wd * param`, and that
decayed gradient goes through the moment estimates and the adaptive scaling. So the equivalent is

    optax.chain(optax.add_decayed_weights(wd), optax.adam(lr))

(decay first, then Adam), NOT `optax.adamw(lr, weight_decay=wd)`, which adds `wd * param` *after*
the adaptive scaling (decoupled, AdamW). The remaining torch defaults match optax.adam's:
betas=(0.9, 0.999), eps=1e-8 added outside the square root (optax's eps_root=0), bias correction on,
amsgrad=False, no Nesterov, moments initialised at zero.
"""

import optax


def make_optimizer(learning_rate: float, weight_decay: float) -> optax.GradientTransformation:
    return optax.chain(
        optax.add_decayed_weights(weight_decay),  # grad <- grad + weight_decay * param
        optax.adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0),
    )


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp

    tx = make_optimizer(1e-3, 1e-4)
    params = {"w": jnp.ones((3,)), "b": jnp.zeros(())}
    state = tx.init(params)

    @jax.jit
    def step(params, state):
        grads = jax.grad(lambda p: jnp.sum(p["w"] ** 2) + p["b"] ** 2 + p["b"])(params)
        updates, state = tx.update(grads, state, params)
        return optax.apply_updates(params, updates), state

    for _ in range(3):
        params, state = step(params, state)
    print(params)
