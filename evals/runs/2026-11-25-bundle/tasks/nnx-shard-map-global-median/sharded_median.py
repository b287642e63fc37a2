"""Global median of a Flax NNX model's scores inside nnx.shard_map, replicated on every device.

A median does not decompose over shards (the median of the per-shard medians is not the median of
the batch), so each device first collects every score with `jax.lax.all_gather(..., tiled=True)` over
"data" (n / 8 scores from each device, concatenated in shard order into all n), then computes
`jnp.median` on the full vector. Every device computes the same value from the same data.

`to="invarying"` types the gathered vector as identical on all devices (the default types an
all_gather result as varying), so the replication check of shard_map (`check_vma=True`, the
default) accepts the scalar as a replicated output, `out_specs=P()`, with no need to turn the check
off.

Cost: each device receives the n scores (n floats, not the n x d inputs), then sorts n values.
For a very large n and an approximate metric, a histogram reduced with `psum` would be cheaper.
"""

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P


@nnx.jit(static_argnames="mesh")
def _median_on_mesh(model: nnx.Module, x: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    @nnx.shard_map(mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
    def per_device(model: nnx.Module, x_block: jax.Array) -> jax.Array:
        local_scores = model(x_block)[:, 0]  # this device's n / 8 scores
        all_scores = jax.lax.all_gather(local_scores, "data", tiled=True, to="invarying")  # (n,)
        return jnp.median(all_scores)

    return per_device(model, x)


def global_median_prediction(model: nnx.Module, x: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    """Median of model(x)[:, 0] over all n rows, computed in nnx.shard_map; a replicated scalar.

    Args:
        model: maps (n, d) to (n, 1) scores; used replicated (in_specs P()).
        x: (n, d), n a multiple of 8, already placed with NamedSharding(mesh, P("data")).
        mesh: one axis "data" of 8 devices.

    Returns:
        A scalar with sharding NamedSharding(mesh, P()): the same value on every device.
    """
    # Put a replica of the model's state on the same mesh as the batch (a no-op if it already is).
    # Arrays that meet in one jit must live on the same mesh; this works on a copy, the caller's
    # model is not modified.
    graphdef, state = nnx.split(model)
    replica = nnx.merge(graphdef, jax.device_put(state, NamedSharding(mesh, P())))
    x = jax.device_put(x, NamedSharding(mesh, P("data")))  # no-op for the documented input
    return _median_on_mesh(replica, x, mesh=mesh)
