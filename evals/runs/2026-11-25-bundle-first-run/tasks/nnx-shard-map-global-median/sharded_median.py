"""Global median of a model's scores inside Flax NNX's shard_map.

A median is not decomposable the way a mean is: the median of the 8 per-shard medians is *not* the
median of the batch, and there is no ``pmedian``. Each device therefore needs every score. Scores are
one float per row, so gathering them is cheap: each device computes its block's scores, an
``all_gather`` over ``"data"`` (tiled, i.e. concatenated along axis 0) gives every device all ``n``
scores in global row order, and every device takes the same ``jnp.median`` of the same array.

``to="invarying"`` on the gather tells ``shard_map``'s replication check (``check_vma=True``, the
default) that the gathered array is the same on every device, so the scalar may be returned with
``out_specs=P()`` (replicated). A plain gather is typed "varying" and the ``P()`` output would be
rejected ("out_specs ... require replication which can't be statically inferred").

The model goes in with the spec ``P()``: a prefix that applies to its whole state, i.e. every Variable
replicated on all 8 devices. ``x`` goes in with ``P("data")``: each device sees its ``(n/8, d)`` block.

Usage::

    mesh = jax.make_mesh((8,), ("data",))
    x = jax.device_put(x, NamedSharding(mesh, P("data")))
    median = global_median_prediction(model, x, mesh)   # shape (), replicated on the mesh
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import PartitionSpec as P


def global_median_prediction(model: nnx.Module, x: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    """Median of ``model(x)[:, 0]`` over all ``n`` rows, computed per device and returned replicated.

    Args:
        model: maps ``(rows, d)`` to ``(rows, 1)`` scores; replicated on every device.
        x: ``(n, d)``, ``n`` a multiple of 8, placed with ``NamedSharding(mesh, P("data"))``.
        mesh: one axis ``"data"`` of 8 devices.

    Returns:
        A scalar, identical on every device (sharding ``P()`` on ``mesh``).
    """

    @nnx.shard_map(mesh=mesh, in_specs=(P(), P("data")), out_specs=P())
    def per_device(model: nnx.Module, x_block: jax.Array) -> jax.Array:
        local_scores = model(x_block)[:, 0]  # (n / 8,) scores of this device's rows
        # Every device receives all n scores, in global row order, typed as replicated.
        all_scores = jax.lax.all_gather(local_scores, "data", tiled=True, to="invarying")
        return jnp.median(all_scores)

    with jax.set_mesh(mesh):
        return per_device(model, x)
