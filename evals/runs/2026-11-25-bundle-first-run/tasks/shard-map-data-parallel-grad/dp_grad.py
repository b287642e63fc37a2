"""Data-parallel gradient with jax.shard_map (parameters replicated, batch split over "data").

The pmap recipe -- jax.grad of the local loss inside the mapped function, then
jax.lax.pmean(grads, "data") -- is wrong under shard_map: it returns 8 times the gradient on 8
devices, silently. With shard_map's replication typing (check_vma=True, the default), the replicated
params are *invariant* over "data"; using them with the per-device batch inserts a cast to "varying"
(the pvary primitive), and the transpose of that cast sums the cotangent over "data". So jax.grad taken
inside the body already returns the SUM of the 8 local gradients, and the pmean afterwards averages
8 equal copies and changes nothing.

The form used here avoids the question: the shard_mapped function computes the *global* loss (the
pmean over "data" of each device's local mean, which equals the mean over the whole batch because every
device holds n / 8 rows), and jax.grad is taken of that function from outside. Autodiff through
shard_map inserts the one all-reduce of the gradients, and the result is replicated, like the params.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def _local_loss(params: dict[str, jax.Array], inputs: jax.Array, targets: jax.Array) -> jax.Array:
    """Per-device body: this device's mean squared error, averaged over the devices -> the global mean."""
    pred = inputs @ params["w"] + params["b"]
    return jax.lax.pmean(jnp.mean((pred - targets) ** 2), "data")


@functools.lru_cache(maxsize=None)
def _grad_fn(mesh: jax.sharding.Mesh):
    """One jitted gradient function per mesh (built once, so repeated calls do not recompile)."""
    global_loss = jax.shard_map(
        _local_loss,
        mesh=mesh,
        in_specs=(P(), P("data"), P("data")),  # params replicated, batch rows split
        out_specs=P(),  # the pmean'd loss is the same on every device
    )
    return jax.jit(jax.grad(global_loss))


def data_parallel_grad(params: dict[str, jax.Array], inputs: jax.Array, targets: jax.Array,
                       mesh: jax.sharding.Mesh) -> dict[str, jax.Array]:
    """Gradient of jnp.mean((inputs @ w + b - targets) ** 2) over the whole batch, fully replicated.

    params {"w": (d, k), "b": (k,)} placed with P() on `mesh`; inputs (n, d) and targets (n, k) placed
    with P("data"), n divisible by the size of "data".
    """
    return _grad_fn(mesh)(params, inputs, targets)


if __name__ == "__main__":
    # Run with XLA_FLAGS=--xla_force_host_platform_device_count=8 to get 8 CPU devices.
    import numpy as np
    from jax.sharding import NamedSharding

    mesh = jax.make_mesh((8,), ("data",))
    rng = np.random.default_rng(0)
    n, d, k = 64, 16, 4
    params_np = {"w": rng.normal(size=(d, k)).astype(np.float32), "b": rng.normal(size=k).astype(np.float32)}
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = rng.normal(size=(n, k)).astype(np.float32)

    params = jax.device_put(params_np, NamedSharding(mesh, P()))
    inputs = jax.device_put(x, NamedSharding(mesh, P("data")))
    targets = jax.device_put(y, NamedSharding(mesh, P("data")))
    grads = data_parallel_grad(params, inputs, targets, mesh)

    def full_loss(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    ref = jax.grad(full_loss)(params_np)
    for name in ref:
        np.testing.assert_allclose(grads[name], ref[name], rtol=1e-5, atol=1e-6)
        assert grads[name].sharding.is_fully_replicated
    hlo = _grad_fn(mesh).lower(params, inputs, targets).compile().as_text()
    print("gradients equal the single-device gradient; all-reduce in HLO:", "all-reduce" in hlo)
