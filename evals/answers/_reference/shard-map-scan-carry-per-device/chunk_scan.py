"""Per-device running sums: the zero initial carry is cast to device-varying with jax.lax.pcast."""

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def chunk_running_sums(x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    def per_device(chunk: jax.Array) -> tuple[jax.Array, jax.Array]:
        # The zero carry is the same on every device (invariant); the body adds the device's own data,
        # so the carry it returns varies over "data". Give the initial carry that type too.
        start = jax.lax.pcast(jnp.zeros((), chunk.dtype), "data", to="varying")

        def step(total, value):
            total = total + value
            return total, total

        last, running = jax.lax.scan(step, start, chunk)
        return running, jax.lax.psum(last, "data")

    return jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("data"), out_specs=(P("data"), P())))(x)
