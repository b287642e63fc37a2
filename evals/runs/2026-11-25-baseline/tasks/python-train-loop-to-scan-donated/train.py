"""The training loop: one SGD step per batch, compiled once as a lax.scan.

What was slow in the old loop
-----------------------------
* `jax.jit(partial(sgd_step, ...))` was created inside the loop: every iteration made a new jitted
  function, so every step was traced and compiled again.
* `float(loss)` after each step waited for the device and copied the loss to the host, so the next
  step could not be dispatched early: gaps between steps.
* The old params stayed alive next to the new ones until Python dropped them.

Now the whole run is one jitted function: a `lax.scan` over the batches carrying the parameters
(one compilation, no return to Python between steps, the losses stay on the device and come back as
one array), and the incoming params are donated (`donate_argnums=0`), so XLA reuses their buffers
for the updated parameters instead of keeping a second copy.
"""

from functools import partial

import jax

from model import loss_fn


def sgd_step(params, x, y, learning_rate):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - learning_rate * g, params, grads), loss


@partial(jax.jit, donate_argnums=(0,))
def _train(params, xs, ys, learning_rate):
    def body(params, batch):
        x, y = batch
        return sgd_step(params, x, y, learning_rate)

    return jax.lax.scan(body, params, (xs, ys))


def train(params, xs, ys, learning_rate):
    """xs: (steps, batch, d), ys: (steps, batch, k). Returns (params, losses of shape (steps,)).

    `params` is donated: its buffers are reused for the result, so the caller must not read the
    params it passed in afterwards. `learning_rate` is traced, so changing it does not recompile.
    """
    return _train(params, xs, ys, learning_rate)


if __name__ == "__main__":
    import jax.numpy as jnp
    import numpy as np

    from model import init_params

    steps, batch, d, hidden, k = 20, 16, 4, 8, 2
    kx, ky, kp = jax.random.split(jax.random.key(0), 3)
    xs = jax.random.normal(kx, (steps, batch, d))
    ys = jax.random.normal(ky, (steps, batch, k))

    # Reference: the old per-step loop (with the jit hoisted out of the loop).
    step = jax.jit(partial(sgd_step, learning_rate=0.1))
    ref_params, ref_losses = init_params(kp, d, hidden, k), []
    for x, y in zip(xs, ys):
        ref_params, loss = step(ref_params, x, y)
        ref_losses.append(float(loss))

    params, losses = train(init_params(kp, d, hidden, k), xs, ys, 0.1)
    print(np.allclose(losses, ref_losses, rtol=1e-5, atol=1e-6))
    print(all(np.allclose(params[n], ref_params[n], rtol=1e-5, atol=1e-6) for n in params))
    print(jnp.shape(losses))
