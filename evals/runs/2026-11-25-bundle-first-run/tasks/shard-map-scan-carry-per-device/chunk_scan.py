"""Per-device running sums with lax.scan inside jax.shard_map, plus the global total.

Why `jax.lax.scan(step, jnp.zeros(()), chunk)` fails inside shard_map: with the replication check on
(check_vma=True, the default), every value's type records the mesh axes it may differ over. The chunk
comes from an input split over "data", so it is *varying* over "data" (float32[]{V:data} per element),
while jnp.zeros(()) is a constant, the same on every device: *invariant*. After one step the carry
`0 + x[i]` is varying, so the carry's output type differs from its input type and scan raises
"scan body function carry input and carry output must have equal types".

The fix is to start the carry with the type it will have: `jax.lax.pcast(init, "data", to="varying")`
marks the zero as per-device (no communication; it lowers to its operand). `jax.lax.pcast` replaces the
removed `jax.lax.pvary`. Turning check_vma off would also silence the error, but it also turns off the
check that the replicated output (the total) really is replicated.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def _per_device(chunk: jax.Array) -> tuple[jax.Array, jax.Array]:
    """chunk: this device's (n / 8,) slice. Returns (its running sums, the sum over all devices)."""
    init = jax.lax.pcast(jnp.zeros((), chunk.dtype), "data", to="varying")  # varying, like the data

    def step(carry, value):
        carry = carry + value
        return carry, carry

    _, running = jax.lax.scan(step, init, chunk)
    total = jax.lax.psum(jnp.sum(chunk), "data")  # all-reduce: invariant, may be returned as P()
    return running, total


@functools.lru_cache(maxsize=None)
def _program(mesh: jax.sharding.Mesh):
    """One jitted shard_map per mesh, so repeated calls reuse the compiled program."""
    return jax.jit(
        jax.shard_map(
            _per_device,
            mesh=mesh,
            in_specs=P("data"),
            out_specs=(P("data"), P()),  # running: split like x; total: replicated scalar
        )  # check_vma left at its default, True
    )


def chunk_running_sums(x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """x: float32 (n,), n divisible by 8, placed with NamedSharding(mesh, P("data")).

    Returns (running, total): running (n,), split over "data" like x, where each device's chunk holds
    the cumulative sum of that chunk restarting from zero; total is the scalar sum of x.
    """
    return _program(mesh)(x)


if __name__ == "__main__":
    # Run with XLA_FLAGS=--xla_force_host_platform_device_count=8 to get 8 CPU devices.
    import numpy as np
    from jax.sharding import NamedSharding

    mesh = jax.make_mesh((8,), ("data",))
    x_np = np.arange(32, dtype=np.float32)
    x = jax.device_put(x_np, NamedSharding(mesh, P("data")))
    running, total = chunk_running_sums(x, mesh)
    expected = np.concatenate([np.cumsum(chunk) for chunk in np.split(x_np, 8)])
    np.testing.assert_allclose(running, expected)
    np.testing.assert_allclose(total, x_np.sum())
    print(running.sharding.spec, np.asarray(running)[:8], float(total))
