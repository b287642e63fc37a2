"""Adam training step that reuses the parameter and optimizer-state buffers (buffer donation).

Without donation, XLA must keep the input buffers of ``params`` and ``opt_state`` alive for the
whole call (the caller could still read them) and allocate fresh buffers for the outputs, so each
step holds two copies of the parameters and of Adam's ``mu``/``nu``. Donating those arguments
(``donate_argnames=("params", "opt_state")``) tells XLA it may write the new values into the old
buffers: every output with the same shape and dtype as a donated input aliases it.

After a call the donated arrays are deleted; using them again raises ``RuntimeError``. So always
rebind:

    params, opt_state, loss = train_step(params, opt_state, x, y)

``x`` and ``y`` are not donated: the batch has no output of the same shape to alias, and the
caller may reuse it.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import optax

LEARNING_RATE = 1e-2
optimizer = optax.adam(LEARNING_RATE)


def init(params: dict) -> optax.OptState:
    """Adam(1e-2) state for ``params = {"w": f32[d, k], "b": f32[k]}``."""
    return optimizer.init(params)


def loss_fn(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@functools.partial(jax.jit, donate_argnames=("params", "opt_state"))
def train_step(params: dict, opt_state, x: jax.Array, y: jax.Array):
    """One Adam step; returns ``(new_params, new_opt_state, loss before the step)``.

    ``params`` and ``opt_state`` are donated: their buffers are reused for the outputs and must not
    be read again by the caller.
    """
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    updates, new_opt_state = optimizer.update(grads, opt_state, params)
    new_params = optax.apply_updates(params, updates)
    return new_params, new_opt_state, loss


if __name__ == "__main__":
    import warnings

    d, k, n = 64, 8, 32
    kw, kx, ky = jax.random.split(jax.random.key(0), 3)
    params = {"w": jax.random.normal(kw, (d, k)), "b": jnp.zeros((k,))}
    opt_state = init(params)
    x = jax.random.normal(kx, (n, d))
    y = jax.random.normal(ky, (n, k))

    # Reference: the same step without donation.
    def ref_step(p, s, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        u, s = optimizer.update(g, s, p)
        return optax.apply_updates(p, u), s, loss

    ref = jax.jit(ref_step)(params, opt_state, x, y)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Some donated buffers were not usable" would be an error
        mem = train_step.lower(params, opt_state, x, y).compile().memory_analysis()
        plain = jax.jit(ref_step).lower(params, opt_state, x, y).compile().memory_analysis()
    state_bytes = sum(a.nbytes for a in jax.tree.leaves((params, opt_state)))
    print("aliased bytes", mem.alias_size_in_bytes, "of", state_bytes,
          "| without donation:", plain.alias_size_in_bytes)
    assert mem.alias_size_in_bytes == state_bytes

    old_w = params["w"]
    params, opt_state, loss = train_step(params, opt_state, x, y)
    assert old_w.is_deleted()
    for a, b in zip(jax.tree.leaves((params, opt_state, loss)), jax.tree.leaves(ref)):
        assert jnp.array_equal(a, b)
    for _ in range(100):
        params, opt_state, loss = train_step(params, opt_state, x, y)
    print("loss after 101 steps", float(loss), "< first", float(ref[2]))
