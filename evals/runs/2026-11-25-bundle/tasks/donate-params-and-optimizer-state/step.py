"""An Adam training step that reuses the parameter and optimizer-state buffers (buffer donation).

Why memory doubles: a jitted function's inputs stay alive while it runs, and without donation XLA
must allocate fresh output buffers for the new params and the new Adam state (mu, nu, count). So at
the peak you hold params + mu + nu twice.

The fix: donate the inputs you overwrite. `donate_argnames=("params", "opt_state")` tells XLA it may
write the outputs into the input buffers (each new leaf has the same shape/dtype as the old one, so
every buffer can be aliased). Check it with

    compiled = train_step.lower(params, opt_state, x, y).compile()
    compiled.memory_analysis().alias_size_in_bytes   # == bytes of params + opt_state

Rule that comes with it: after the call the donated arrays are deleted. Always rebind,

    params, opt_state, loss = train_step(params, opt_state, x, y)

and never read the old `params`/`opt_state` again (that raises "Array has been deleted"). Do not
donate `x`/`y` if you reuse the batch. On CPU, GPU and TPU donation is honoured.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 1e-2
optimizer = optax.adam(LEARNING_RATE)


def init(params: dict) -> optax.OptState:
    """The optax.adam(1e-2) state for params = {"w": f32[d, k], "b": f32[k]}."""
    return optimizer.init(params)


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@functools.partial(jax.jit, donate_argnames=("params", "opt_state"))
def train_step(params: dict, opt_state: optax.OptState, x: jax.Array, y: jax.Array):
    """One Adam(1e-2) step. Returns (new_params, new_opt_state, loss before the step).

    `params` and `opt_state` are donated: their buffers are reused for the outputs and the
    arrays passed in are invalid after the call.
    """
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, new_opt_state = optimizer.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, new_opt_state, loss


if __name__ == "__main__":
    kx, kw = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (256, 64))
    y = x @ jax.random.normal(kw, (64, 8))
    params = {"w": jnp.zeros((64, 8)), "b": jnp.zeros(8)}
    opt_state = init(params)

    mem = train_step.lower(params, opt_state, x, y).compile().memory_analysis()
    state_bytes = sum(a.nbytes for a in jax.tree.leaves((params, opt_state)))
    print("aliased bytes:", mem.alias_size_in_bytes, "of", state_bytes)

    for i in range(100):
        params, opt_state, loss = train_step(params, opt_state, x, y)  # always rebind
    print("final loss:", float(loss))
