"""SGD over batches already on the device, with no host-to-device transfer at all.

Where the small host-to-device copies came from: in
`for i in range(num_batches): params, loss = step(params, xs[i], ys[i])` the index `i` is a Python
int, and indexing a device array with it copies the index to the device (an int32 scalar) on every
step, twice; `jax.transfer_guard("disallow")` rejects exactly that ("Disallowed host-to-device
transfer: aval=ShapedArray(int32[], weak_type=True)"). Each step was also a separate dispatch from
Python, hence the gaps.

Now the whole loop is one jitted `lax.scan` over the leading (batch) axis of xs and ys: the slicing
happens on the device inside the compiled loop, the learning rate is a compile-time literal (nothing
passed from the host per call), and the losses are stacked on the device. The only arguments are the
device arrays you pass in, so a call performs no host-to-device transfer. Do not convert the losses
with float() inside the loop; read `np.asarray(losses)` once afterwards if you need them on the host
(that is a device-to-host copy, outside what "disallow" for host-to-device is about; use
jax.transfer_guard_host_to_device("disallow") if you want to read results inside the guarded block).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

LEARNING_RATE = 0.1


def _loss(params: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@jax.jit
def fit(params: dict, xs: jax.Array, ys: jax.Array) -> tuple[dict, jax.Array]:
    """params = {"w": f32[d, k], "b": f32[k]}; xs (num_batches, batch, d); ys (num_batches, batch, k).

    One SGD step (lr 0.1) per batch, in order. Returns (final_params, losses), losses[i] = batch i's
    loss before its step. Runs under `with jax.transfer_guard("disallow"):` for device inputs.
    """

    def step(params, batch):
        x, y = batch
        loss, grads = jax.value_and_grad(_loss)(params, x, y)
        params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
        return params, loss

    return jax.lax.scan(step, params, (xs, ys))


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    nb, batch, d, k = 20, 8, 5, 3
    params = jax.device_put({"w": np.zeros((d, k), np.float32), "b": np.zeros(k, np.float32)})
    xs = jax.device_put(rng.normal(size=(nb, batch, d)).astype(np.float32))
    ys = jax.device_put(rng.normal(size=(nb, batch, k)).astype(np.float32))

    with jax.transfer_guard("disallow"):
        final, losses = fit(params, xs, ys)
        final, losses = fit(final, xs, ys)  # a second call: still no transfer
    jax.block_until_ready((final, losses))

    # reference: the original Python loop (outside the guard, it does transfer the indices)
    step = jax.jit(lambda p, x, y: (jax.tree.map(lambda a, g: a - 0.1 * g, p, jax.grad(_loss)(p, x, y)),
                                    _loss(p, x, y)))
    p, ref = params, []
    for _ in range(2):
        for i in range(nb):
            p, loss = step(p, xs[i], ys[i])
            ref.append(loss)
    np.testing.assert_allclose(np.asarray(losses), np.asarray(ref[nb:]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(final["w"]), np.asarray(p["w"]), rtol=1e-5, atol=1e-6)
    print("no host-to-device transfers; matches the Python loop")
