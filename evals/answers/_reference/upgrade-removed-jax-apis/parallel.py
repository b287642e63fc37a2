"""Per-device row sums and a global total over all devices."""

import jax
from jax.sharding import NamedSharding, PartitionSpec as P


def row_sums_and_total(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """x: (rows, cols) with rows divisible by the device count. Returns (row sums split over the
    devices, total sum replicated)."""
    mesh = jax.make_mesh((jax.device_count(),), ("d",))
    per_device = jax.shard_map(
        lambda block: (block.sum(axis=1), jax.lax.psum(block.sum(), "d")),
        mesh=mesh,
        in_specs=P("d"),
        out_specs=(P("d"), P()),
    )
    with jax.set_mesh(mesh):
        return jax.jit(per_device)(jax.device_put(x, NamedSharding(mesh, P("d"))))
