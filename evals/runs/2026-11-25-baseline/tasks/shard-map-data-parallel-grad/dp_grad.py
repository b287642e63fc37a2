"""Data-parallel gradient with jax.shard_map (replacing jax.pmap + lax.pmean).

What changes from pmap
----------------------
shard_map checks how values vary across the mesh (check_vma, on by default). The parameters enter
replicated (in_specs P()), i.e. device-invariant, while the batch is device-varying. When a
device-invariant value is used together with device-varying data, JAX inserts an implicit
"broadcast to varying" (pvary), and the transpose of that broadcast is a psum. So `jax.grad` with
respect to the replicated parameters already sums the per-device gradients over "data", and the
result is invariant. The pmap recipe "grad of the local mean loss, then pmean" would therefore be
wrong here: the gradient is already summed, and averaging afterwards does not undo the sum.

The clean formulation is to differentiate the *global* loss written inside shard_map:
    loss = psum(sum of local squared errors, "data") / (global number of elements)
which is exactly jnp.mean over the whole batch; its gradient with respect to the replicated params
is the whole-batch gradient, identical on every device (out_specs P()).
"""

import functools

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

_AXIS = "data"


@functools.partial(jax.jit, static_argnames=("mesh",))
def _data_parallel_grad(params, inputs, targets, mesh):
    num_elements = inputs.shape[0] * targets.shape[1]  # global sizes, outside shard_map

    def per_device(params, x, y):
        def global_loss(p):
            local_sse = jnp.sum((x @ p["w"] + p["b"] - y) ** 2)
            return jax.lax.psum(local_sse, _AXIS) / num_elements

        return jax.grad(global_loss)(params)

    return jax.shard_map(
        per_device,
        mesh=mesh,
        in_specs=(P(), P(_AXIS), P(_AXIS)),  # params replicated, batch split over "data"
        out_specs=P(),  # the gradient is replicated
    )(params, inputs, targets)


def data_parallel_grad(params, inputs, targets, mesh):
    """Gradient of jnp.mean((inputs @ w + b - targets) ** 2) over the whole batch, replicated."""
    return _data_parallel_grad(params, inputs, targets, mesh)


if __name__ == "__main__":
    import numpy as np
    from jax.sharding import NamedSharding

    n_dev = jax.device_count()
    mesh = jax.make_mesh((n_dev,), (_AXIS,))
    rng = np.random.default_rng(0)
    d, k, n = 4, 3, 8 * n_dev
    params = {"w": rng.normal(size=(d, k)).astype(np.float32), "b": np.zeros(k, np.float32)}
    x = rng.normal(size=(n, d)).astype(np.float32)
    y = rng.normal(size=(n, k)).astype(np.float32)

    p_rep = jax.device_put(params, NamedSharding(mesh, P()))
    xs = jax.device_put(x, NamedSharding(mesh, P(_AXIS)))
    ys = jax.device_put(y, NamedSharding(mesh, P(_AXIS)))
    g = data_parallel_grad(p_rep, xs, ys, mesh)
    ref = jax.grad(lambda p: jnp.mean((x @ p["w"] + p["b"] - y) ** 2))(params)
    print({name: bool(np.allclose(g[name], ref[name], rtol=1e-5, atol=1e-6)) for name in g})
