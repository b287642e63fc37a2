"""Data-parallel SGD for a linear model, with jax.shard_map over a one-axis mesh of all devices.

Ported from the jax.pmap version. What changed and why:

- `jax.pmap` + `device_put_replicated` + reshaping the batch to (n_devices, n / n_devices, ...) is
  replaced by a mesh of all devices with one axis, "batch", and `jax.shard_map` over it. The batch
  stays a normal (n, ...) array, split with a NamedSharding `P("batch")`; the parameters are
  replicated with `P()`. The per-device body sees its (n / n_devices, ...) block.
- The gradient is taken of the shard_mapped *global* loss (`pmean` of the local mean losses), from
  outside the shard_map. Do not keep the pmap habit `pmean(grad(local_loss))` inside the body: under
  shard_map the gradient of a replicated input is already summed over the devices, so that form
  returns n_devices times the true gradient, silently.
- `jax.tree_map` (removed) is `jax.tree.map`. No `[0]` indexing of outputs: the replicated results
  come out as ordinary (replicated) arrays via `out_specs=P()`.

With equal-sized shards, the mean of the per-device mean losses is the mean over the whole batch, so
the loss, the gradient and the update are those of one device on the whole batch (up to float
rounding from the different summation order).
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P

LEARNING_RATE = 0.1
AXIS = "batch"


def loss_fn(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def _global_loss(params, x, y):
    """Per device: the mean loss of its block, averaged over all devices = the whole-batch mean."""
    return jax.lax.pmean(loss_fn(params, x, y), AXIS)


@functools.cache
def _mesh() -> jax.sharding.Mesh:
    """One axis over all devices (built on first use, after any XLA device flags are set)."""
    return jax.make_mesh((jax.device_count(),), (AXIS,))


@functools.cache
def _compiled_step():
    sharded_loss = jax.shard_map(
        _global_loss,
        mesh=_mesh(),
        in_specs=(P(), P(AXIS), P(AXIS)),  # params replicated, batch split by rows
        out_specs=P(),  # the pmean'd loss is the same on every device
    )

    @jax.jit
    def step(params, x, y):
        # Gradient of the global loss, taken outside shard_map: the data-parallel all-reduce of the
        # gradients is inserted by autodiff (the transpose of the replicated-parameter broadcast).
        loss, grads = jax.value_and_grad(sharded_loss)(params, x, y)
        new_params = jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)
        return new_params, loss

    return step


def train_step(params, x, y):
    """One data-parallel step on the global batch (x, y); returns (new_params, mean loss)."""
    mesh = _mesh()
    n_devices = mesh.shape[AXIS]
    if x.shape[0] % n_devices or y.shape[0] != x.shape[0]:
        raise ValueError(f"batch of {x.shape[0]} rows must split evenly over {n_devices} devices")
    replicated = NamedSharding(mesh, P())
    by_rows = NamedSharding(mesh, P(AXIS))
    params = jax.tree.map(lambda leaf: jax.device_put(leaf, replicated), params)
    x = jax.device_put(x, by_rows)
    y = jax.device_put(y, by_rows)
    with jax.set_mesh(mesh):
        return _compiled_step()(params, x, y)


def _single_device_step(params, x, y):
    """Reference: the same SGD step on one device, whole batch."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads), loss


if __name__ == "__main__":
    # Check: run with e.g. XLA_FLAGS=--xla_force_host_platform_device_count=8 python train.py
    rng = np.random.default_rng(0)
    n, d, k = 8 * jax.device_count(), 5, 3
    params = {
        "w": rng.normal(size=(d, k)).astype(np.float32),
        "b": rng.normal(size=(k,)).astype(np.float32),
    }
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = rng.normal(size=(n, k)).astype(np.float32)

    new_params, loss = train_step(params, x, y)
    ref_params, ref_loss = jax.jit(_single_device_step)(params, x, y)

    print(f"devices: {jax.device_count()}  loss: {float(loss):.7f}  single device: {float(ref_loss):.7f}")
    np.testing.assert_allclose(loss, ref_loss, rtol=1e-6)
    for name in params:
        np.testing.assert_allclose(new_params[name], ref_params[name], rtol=1e-6, atol=1e-6)
        assert new_params[name].sharding.is_fully_replicated
        print(name, "max |diff| =", float(np.max(np.abs(np.asarray(new_params[name]) - np.asarray(ref_params[name])))))
    print("ok: the shard_map step matches the single-device step")
