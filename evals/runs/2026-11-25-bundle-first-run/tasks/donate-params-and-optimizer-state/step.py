"""An Adam training step that reuses the buffers of the old params and optimizer state (donation).

Without donation XLA must keep the input buffers alive while it writes the outputs, so during the step
device memory holds the old and the new params, and the old and the new Adam moments (mu, nu): two
copies of everything. ``donate_argnames=("params", "opt_state")`` tells XLA it may write the new params
and the new state into the buffers of the old ones (every output leaf has the shape and dtype of an
input leaf, so all of them can be aliased).

Rules that come with donation:

* Rebind: ``params, opt_state, loss = train_step(params, opt_state, x, y)``. The donated arrays are
  deleted by the call; touching them again raises ``RuntimeError: Array has been deleted``.
* Do not keep other references to the same arrays (e.g. a copy of the initial params for later):
  take ``jnp.copy`` first if you need one.
* Do not donate the batch (x, y): no output has its shape, so XLA would warn "Some donated buffers
  were not usable".
* Check it: ``train_step.lower(params, opt_state, x, y).compile().memory_analysis().alias_size_in_bytes``
  equals the bytes of params + opt_state.
* CPU, GPU and TPU all honour donation.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 1e-2
_optimizer = optax.adam(LEARNING_RATE)


def init(params: dict) -> optax.OptState:
    """The optax.adam(1e-2) state for params = {"w": f32[d, k], "b": f32[k]}."""
    return _optimizer.init(params)


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@partial(jax.jit, donate_argnames=("params", "opt_state"))
def train_step(
    params: dict, opt_state: optax.OptState, x: jax.Array, y: jax.Array
) -> tuple[dict, optax.OptState, jax.Array]:
    """One Adam(1e-2) step; returns (new_params, new_opt_state, loss before the step).

    ``params`` and ``opt_state`` are donated: their buffers are reused for the outputs and the
    arrays passed in are invalid after the call. Always rebind them to the returned values.
    """
    loss, grads = jax.value_and_grad(_loss)(params, x, y)
    updates, new_opt_state = _optimizer.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, new_opt_state, loss


if __name__ == "__main__":
    kx, kw = jax.random.split(jax.random.key(0))
    x = jax.random.normal(kx, (64, 8))
    y = x @ jax.random.normal(kw, (8, 3))
    params = {"w": jnp.zeros((8, 3)), "b": jnp.zeros(3)}
    opt_state = init(params)

    mem = train_step.lower(params, opt_state, x, y).compile().memory_analysis()
    donated_bytes = sum(a.nbytes for a in jax.tree.leaves((params, opt_state)))
    print("aliased bytes", mem.alias_size_in_bytes, "of", donated_bytes)

    old_w = params["w"]
    losses = []
    for _ in range(100):
        params, opt_state, loss = train_step(params, opt_state, x, y)  # rebind every step
        losses.append(float(loss))
    assert old_w.is_deleted()  # the first call consumed the original buffer
    assert losses[-1] < losses[0]
    print(f"loss {losses[0]:.4f} -> {losses[-1]:.4f}")
