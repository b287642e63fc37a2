"""Data-parallel SGD for a linear model, with jax.shard_map over a one-axis mesh of all devices."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

LEARNING_RATE = 0.1
AXIS = "batch"


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@functools.cache
def _mesh() -> jax.sharding.Mesh:
    return jax.make_mesh((jax.device_count(),), (AXIS,))


@functools.cache
def _compiled_step(mesh: jax.sharding.Mesh):
    num_shards = mesh.shape[AXIS]

    def per_shard(params, x, y):
        # x, y: this device's rows; params: replicated (device-invariant).
        num_elements = x.shape[0] * num_shards * y.shape[1]

        def global_loss(p):
            # Sum of squared errors of the local rows, summed over all devices, divided by the
            # number of elements of the whole batch: exactly the single-device mean loss.
            local_sse = jnp.sum((x @ p["w"] + p["b"] - y) ** 2)
            return jax.lax.psum(local_sse, AXIS) / num_elements

        # With shard_map's replication checking (check_vma, on by default) the gradient with
        # respect to the replicated params is already summed over devices (the transpose of the
        # implicit broadcast of `p` is a psum), and it is device-invariant. No pmean is needed
        # (adding one would be wrong); the result is the gradient of the whole-batch loss.
        loss, grads = jax.value_and_grad(global_loss)(params)
        new_params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
        return new_params, loss

    step = jax.shard_map(
        per_shard,
        mesh=mesh,
        in_specs=(P(), P(AXIS), P(AXIS)),
        out_specs=(P(), P()),
    )
    return jax.jit(step)


def train_step(params, x, y):
    """One data-parallel step on the global batch (x, y); returns (new_params, mean loss).

    x: (n, d), y: (n, k) host arrays with n divisible by the device count. new_params are
    replicated on every device; loss is the whole-batch mean loss before the step.
    """
    mesh = _mesh()
    n = x.shape[0]
    if n % mesh.shape[AXIS]:
        raise ValueError(f"batch size {n} is not divisible by the {mesh.shape[AXIS]} devices")
    params = jax.device_put(params, NamedSharding(mesh, P()))
    x = jax.device_put(np.asarray(x), NamedSharding(mesh, P(AXIS)))
    y = jax.device_put(np.asarray(y), NamedSharding(mesh, P(AXIS)))
    return _compiled_step(mesh)(params, x, y)


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    n_dev = jax.device_count()
    d, k, n = 5, 3, 4 * n_dev
    params = {
        "w": rng.normal(size=(d, k)).astype(np.float32),
        "b": rng.normal(size=(k,)).astype(np.float32),
    }
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = rng.normal(size=(n, k)).astype(np.float32)

    new_params, loss = train_step(params, x, y)

    # Reference: one device, whole batch.
    ref_loss, ref_grads = jax.value_and_grad(loss_fn)(params, x, y)
    ref_params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, ref_grads)
    print("loss", float(loss), float(ref_loss))
    for name in params:
        print(name, np.max(np.abs(np.asarray(new_params[name]) - np.asarray(ref_params[name]))))
    print(new_params["w"].sharding)
