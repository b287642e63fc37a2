"""Global median of a replicated NNX model's scores, computed per device inside nnx.shard_map.

Each device scores its own rows, then `jax.lax.all_gather(..., tiled=True, to="invarying")`
concatenates all n scores on every device (in device order) and each device takes the median of the
full vector. A median cannot be combined from per-shard medians (unlike a mean with psum), so the
scores themselves are gathered: n floats per device, cheap for an evaluation metric.

`to="invarying"` types the gathered vector as the same on every device, so with the default
replication check (check_vma=True) the scalar can be returned with out_specs=P() (replicated).
A plain all_gather is typed as varying over "data" and out_specs=P() would be rejected.
"""

import functools

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import PartitionSpec as P


@functools.lru_cache(maxsize=None)
def _median_fn(mesh: jax.sharding.Mesh):
    """Build (once per mesh) the jitted, shard-mapped median function."""

    def per_device(model: nnx.Module, x_block: jax.Array) -> jax.Array:
        local_scores = model(x_block)[:, 0]  # (n / 8,) scores of this device's rows
        all_scores = jax.lax.all_gather(local_scores, "data", tiled=True, to="invarying")  # (n,)
        return jnp.median(all_scores)

    sharded = nnx.shard_map(
        per_device,
        mesh=mesh,
        in_specs=(P(), P("data")),  # model replicated (P() applies to all its Variables), x split by rows
        out_specs=P(),  # one replicated scalar
    )
    return nnx.jit(sharded)


def global_median_prediction(model: nnx.Module, x: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    """Median of model(x)[:, 0] over all n rows of x, as a scalar replicated over `mesh`.

    model: replicated, maps (n, d) -> (n, 1). x: (n, d), n a multiple of the "data" axis size,
    placed with NamedSharding(mesh, P("data")).
    """
    return _median_fn(mesh)(model, x)
