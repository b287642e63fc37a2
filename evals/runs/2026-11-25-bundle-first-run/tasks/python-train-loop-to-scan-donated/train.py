"""The training loop: one SGD step per batch, compiled once as a single program.

What was slow in the old loop, and what replaces it:

* `jax.jit(partial(sgd_step, learning_rate=...))` was created inside the loop: a new function object
  on every step, so JAX traced and compiled it on every step. Here the whole run is one jitted
  function, compiled once per shape/dtype of (params, xs, ys); the learning rate is a traced argument,
  so a new learning rate does not compile again either.
* The Python loop dispatched one step at a time and `float(loss)` waited for each step to finish and
  copied the loss to the host: the gaps between steps. Here `jax.lax.scan` runs all steps inside the
  compiled program (an XLA while loop) and the losses come back as one (steps,) array at the end.
* The old params stayed alive next to the new ones. `params` is donated (`donate_argnames`), so XLA
  writes the final parameters into the input buffers instead of holding a second copy. The caller must
  not use the params it passed in again (they are deleted after the call); use the returned ones.

The arithmetic per step is unchanged (`sgd_step` on `model.loss_fn`, in batch order), so the losses and
the final parameters equal the old loop's up to float32 rounding; run this file to check.
"""

from functools import partial

import jax

from model import loss_fn


def sgd_step(params, x, y, learning_rate):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads), loss


@partial(jax.jit, donate_argnames="params")
def train(params: dict, xs: jax.Array, ys: jax.Array, learning_rate: float) -> tuple[dict, jax.Array]:
    """xs: (steps, batch, d), ys: (steps, batch, k). Returns (params, losses).

    losses[i] is the loss of batch i before its step, shape (steps,). `params` is donated.
    """

    def body(p, batch):
        x, y = batch
        return sgd_step(p, x, y, learning_rate)  # (new carry, per-step output)

    return jax.lax.scan(body, params, (xs, ys))


if __name__ == "__main__":
    # Check against the old loop: same losses and final parameters, one compilation, donation.
    import numpy as np

    from model import init_params

    def old_train(params, xs, ys, learning_rate):
        losses = []
        for x, y in zip(xs, ys):
            step = jax.jit(partial(sgd_step, learning_rate=learning_rate))
            params, loss = step(params, x, y)
            losses.append(float(loss))
        return params, losses

    steps, batch, d, hidden, k = 50, 16, 8, 32, 3
    kx, ky = jax.random.split(jax.random.key(1))
    xs = jax.random.normal(kx, (steps, batch, d))
    ys = jax.random.normal(ky, (steps, batch, k))

    ref_params, ref_losses = old_train(init_params(jax.random.key(0), d, hidden, k), xs, ys, 0.05)

    compiles = []

    def on_event(event, duration_secs, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(str(kwargs.get("fun_name")))

    jax.monitoring.register_event_duration_secs_listener(on_event)
    params = init_params(jax.random.key(0), d, hidden, k)
    donated_leaf = params["w1"]
    new_params, losses = train(params, xs, ys, 0.05)
    again, _ = train(init_params(jax.random.key(0), d, hidden, k), xs, ys, 0.01)  # new lr: no recompile
    jax.block_until_ready((new_params, again))
    jax.monitoring.unregister_event_duration_listener(on_event)

    np.testing.assert_allclose(np.asarray(losses), np.asarray(ref_losses), rtol=1e-5, atol=1e-6)
    for name in ref_params:
        np.testing.assert_allclose(new_params[name], ref_params[name], rtol=1e-5, atol=1e-6)
    assert losses.shape == (steps,)
    assert compiles.count("jit(train)") == 1, compiles
    assert donated_leaf.is_deleted()  # the input buffers were reused for the output
    print(f"losses and params match the old loop; jit(train) compiled {compiles.count('jit(train)')} time(s)")
