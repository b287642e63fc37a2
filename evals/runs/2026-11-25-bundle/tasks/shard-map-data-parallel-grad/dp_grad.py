"""Data-parallel gradient with jax.shard_map (replacing the jax.pmap + pmean-of-grads pattern).

The pmap habit, moved unchanged into shard_map, is silently wrong:

    def body(params, x, y):                      # params in_specs=P(), batch P("data")
        g = jax.grad(loss)(params, x, y)
        return jax.lax.pmean(g, "data")          # 8x the true gradient on 8 devices!

Inside shard_map (check_vma=True, the default) a replicated input such as `params` is typed
*invariant* over "data"; using it with the per-device batch inserts a cast to "varying" whose
transpose is a psum. So `jax.grad` inside the body already returns the SUM of the 8 local gradients,
and the pmean afterwards averages 8 identical sums: the result is n_devices times the gradient of the
mean loss. (Under pmap the gradient of an unmapped input stayed per-device, which is why the habit
worked there.)

The clean form used here: make the shard_map compute the *global* loss (each device's local mean,
then `pmean` over "data" -- equal shard sizes, so this is the mean over the whole batch), and take
`jax.grad` of that shard_mapped function from outside. Autodiff inserts the one all-reduce of the
gradients itself, and the gradient comes back replicated (out_specs=P() on the loss, params P()).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def _local_loss(params: dict, inputs: jax.Array, targets: jax.Array) -> jax.Array:
    """Mean squared error over this device's rows."""
    return jnp.mean((inputs @ params["w"] + params["b"] - targets) ** 2)


@partial(jax.jit, static_argnames="mesh")
def _data_parallel_grad(params, inputs, targets, mesh):
    def global_loss(params, inputs, targets):
        # local mean, then the mean over devices = the mean over the whole batch (equal shards)
        return jax.lax.pmean(_local_loss(params, inputs, targets), "data")

    sharded_loss = jax.shard_map(
        global_loss,
        mesh=mesh,
        in_specs=(P(), P("data"), P("data")),  # params replicated, batch split over "data"
        out_specs=P(),  # the pmean'd loss is the same on every device
    )
    return jax.grad(sharded_loss)(params, inputs, targets)


def data_parallel_grad(params: dict[str, jax.Array], inputs: jax.Array, targets: jax.Array,
                       mesh: jax.sharding.Mesh) -> dict[str, jax.Array]:
    """Gradient of jnp.mean((inputs @ w + b - targets) ** 2) over the whole batch w.r.t. params,
    computed data-parallel with jax.shard_map over `mesh`; fully replicated, same as on one device."""
    return _data_parallel_grad(params, inputs, targets, mesh)


if __name__ == "__main__":
    # XLA_FLAGS=--xla_force_host_platform_device_count=8 python dp_grad.py
    import numpy as np
    from jax.sharding import NamedSharding

    mesh = jax.make_mesh((8,), ("data",))
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(16, 4)).astype(np.float32), "b": rng.normal(size=4).astype(np.float32)}
    x = rng.normal(size=(64, 16)).astype(np.float32)
    y = rng.normal(size=(64, 4)).astype(np.float32)

    rep, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    grads = data_parallel_grad(jax.device_put(params, rep), jax.device_put(x, rows),
                               jax.device_put(y, rows), mesh)
    ref = jax.grad(lambda p: jnp.mean((x @ p["w"] + p["b"] - y) ** 2))(params)
    for k in params:
        np.testing.assert_allclose(grads[k], ref[k], rtol=1e-5, atol=1e-6)
        assert grads[k].sharding.is_fully_replicated
    print("matches the single-device gradient")
