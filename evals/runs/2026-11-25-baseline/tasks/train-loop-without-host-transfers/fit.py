"""Training loop over an on-device dataset with no host-to-device transfers.

Where the small transfers came from: `xs[i]` with a Python integer `i` is a separate indexing
operation outside the jitted step, and the index `i` is sent from the host to the device each time
(it becomes a device scalar). Collecting the losses in Python also syncs with the host every step.

The fix is to move the loop itself into one jitted function: `lax.scan` over the leading (batch)
axis of xs and ys slices the batches on the device, carries the parameters, and stacks the losses
into one device array. The call then only passes device arrays in and gets device arrays back, so
it runs under `jax.transfer_guard("disallow")`. (The learning rate is a compile-time constant.)
"""

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.1


def _loss(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def _sgd_step(params, batch):
    x, y = batch
    loss, grads = jax.value_and_grad(_loss)(params, x, y)
    params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
    return params, loss


@jax.jit
def fit(params: dict, xs: jax.Array, ys: jax.Array) -> tuple[dict, jax.Array]:
    """One SGD step per batch, in order. Returns (final params, losses before each step)."""
    return jax.lax.scan(_sgd_step, params, (xs, ys))


if __name__ == "__main__":
    kx, ky, kw = jax.random.split(jax.random.key(0), 3)
    xs = jax.device_put(jax.random.normal(kx, (10, 32, 4)))
    ys = jax.device_put(jax.random.normal(ky, (10, 32, 2)))
    params = {"w": jax.random.normal(kw, (4, 2)), "b": jnp.zeros(2)}
    fit(params, xs, ys)  # compile outside the guard (not required, just faster to read)
    with jax.transfer_guard("disallow"):
        params, losses = fit(params, xs, ys)
    print(losses)
