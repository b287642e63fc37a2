"""Global (whole-batch) median of model scores inside nnx.shard_map."""
from functools import partial

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import PartitionSpec as P


def _gather_replicated(local: jax.Array, axis_name: str) -> jax.Array:
    """Concatenate the 1-D per-device `local` arrays over `axis_name`, result invariant.

    jax.lax.all_gather would give the same values, but under shard_map's
    replication checking (check_vma) its result is still typed as varying over
    the axis, so out_specs=P() is rejected. Writing each shard into its slot of
    a zero buffer and psum-ing gives the same array (x + 0 is exact) with a
    result that JAX knows is identical on every device.
    """
    k = local.shape[0]
    n_dev = jax.lax.axis_size(axis_name)
    idx = jax.lax.axis_index(axis_name)
    buf = jnp.zeros((n_dev * k,), local.dtype)
    buf = jax.lax.dynamic_update_slice(buf, local, (idx * k,))
    return jax.lax.psum(buf, axis_name)


def global_median_prediction(model: nnx.Module, x: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    """Median of model(x)[:, 0] over all n rows, as a scalar replicated on every device.

    Per device: score the local shard, assemble the scores of every shard (so each
    device sees the full batch) and take the median of that. A median cannot be
    combined from per-shard medians, hence the gather.
    """

    @partial(
        nnx.shard_map,
        mesh=mesh,
        in_specs=(P(), P("data")),  # model replicated, batch split over "data"
        out_specs=P(),              # same scalar on every device
    )
    def _median(model, x_local):
        scores = model(x_local)[:, 0]                   # (n / 8,)
        all_scores = _gather_replicated(scores, "data")  # (n,), same on all devices
        return jnp.median(all_scores)

    return _median(model, x)
