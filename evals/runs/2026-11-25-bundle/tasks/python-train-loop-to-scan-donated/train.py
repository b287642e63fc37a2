"""The training loop: one SGD step per batch, the whole run compiled once.

What was slow in the old loop, and what replaces it:

* `jax.jit(partial(sgd_step, ...))` was created inside the loop. A new `partial` object is a new
  function to `jax.jit`, so its cache never hits: every step traced and compiled again.
* `float(loss)` after every step blocked until the step finished and copied the loss to the host, so the
  device sat idle while Python dispatched the next step (the gaps in the profile).
* Every step allocated new parameter buffers while the old ones were still alive.

Now the loop over batches is a `jax.lax.scan` inside one `jax.jit`: one trace, one XLA compilation,
and the run executes as a single XLA while loop on the device with no return to Python between
steps. The losses are stacked by the scan into one (steps,) array that stays on the device.
`learning_rate` is a traced argument (not static, not closed over), so a new learning rate does not
recompile either. `params` is donated (`donate_argnames="params"`): XLA writes the final parameters
into the input buffers instead of keeping a second copy alive (the caller must not read the donated
params afterwards; use the returned ones).
"""

from functools import partial

import jax

from model import loss_fn


def sgd_step(params, x, y, learning_rate):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads), loss


@partial(jax.jit, donate_argnames="params")
def _train(params, xs, ys, learning_rate):
    def body(params, batch):
        x, y = batch
        params, loss = sgd_step(params, x, y, learning_rate)  # loss is computed before the step
        return params, loss

    return jax.lax.scan(body, params, (xs, ys))


def train(params, xs, ys, learning_rate):
    """xs: (steps, batch, d), ys: (steps, batch, k). Returns (params, losses).

    `params` is donated: do not use it after the call. `losses[i]` is batch i's loss before its step,
    a (steps,) device array (call `np.asarray(losses)` once at the end if you need it on the host).
    """
    return _train(params, xs, ys, learning_rate)


if __name__ == "__main__":
    # Check: same losses and final parameters as the old per-step loop, and one compilation.
    import jax.numpy as jnp
    import numpy as np

    from model import init_params

    steps, batch, d, hidden, k = 50, 16, 8, 32, 3
    kx, ky, kp = jax.random.split(jax.random.key(0), 3)
    xs = jax.random.normal(kx, (steps, batch, d))
    ys = jax.random.normal(ky, (steps, batch, k))
    params0 = init_params(kp, d, hidden, k)

    def old_train(params, xs, ys, learning_rate):  # the original loop, for comparison
        losses = []
        for x, y in zip(xs, ys):
            step = jax.jit(partial(sgd_step, learning_rate=learning_rate))
            params, loss = step(params, x, y)
            losses.append(float(loss))
        return params, losses

    ref_params, ref_losses = old_train(params0, xs, ys, 0.05)

    compiles = []

    def listener(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(str(kwargs.get("fun_name")))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        # copies, because train() donates (deletes) the params it is given
        new_params, losses = train(jax.tree.map(jnp.copy, params0), xs, ys, 0.05)
        new_params2, _ = train(jax.tree.map(jnp.copy, params0), xs, ys, 0.01)  # new lr: no recompile
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)

    np.testing.assert_allclose(np.asarray(losses), np.asarray(ref_losses), rtol=1e-5, atol=1e-6)
    for name in ref_params:
        np.testing.assert_allclose(np.asarray(new_params[name]), np.asarray(ref_params[name]),
                                   rtol=1e-5, atol=1e-6)
    assert losses.shape == (steps,)
    print("losses and params match the old loop; compilations of _train:",
          compiles.count("jit(_train)"))
    assert compiles.count("jit(_train)") == 1

    donated = jax.tree.map(jnp.copy, params0)
    train(donated, xs, ys, 0.05)
    assert all(leaf.is_deleted() for leaf in jax.tree.leaves(donated))  # no second copy kept
