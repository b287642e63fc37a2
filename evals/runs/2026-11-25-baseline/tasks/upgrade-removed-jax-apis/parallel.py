"""Per-device row sums and a global total over all devices (updated for the current JAX).

Changes from the jax 0.4.1x version:
* `jax.experimental.shard_map.shard_map` is deprecated: use `jax.shard_map`.
* Its `check_rep` argument is now `check_vma`. It can stay at its default (on): the row sums are
  device-varying and leave with P("d"), the psum'd total is device-invariant and leaves with P().
* `with mesh:` (using a Mesh as a global context manager) is no longer needed: shard_map gets the
  mesh as an argument.
* The mesh is built with `jax.make_mesh` and explicit (Auto) axis types, so no default is relied on.
"""

import functools

import jax
from jax.sharding import AxisType, PartitionSpec as P


@functools.cache
def _row_sums_and_total_fn(num_devices: int):
    mesh = jax.make_mesh((num_devices,), ("d",), axis_types=(AxisType.Auto,))

    def per_device(block):
        return block.sum(axis=1), jax.lax.psum(block.sum(), "d")

    return jax.jit(
        jax.shard_map(per_device, mesh=mesh, in_specs=P("d"), out_specs=(P("d"), P()))
    )


def row_sums_and_total(x):
    """x: (rows, cols) with rows divisible by the device count. Returns (row sums split over the
    devices, total sum replicated)."""
    return _row_sums_and_total_fn(jax.device_count())(x)
