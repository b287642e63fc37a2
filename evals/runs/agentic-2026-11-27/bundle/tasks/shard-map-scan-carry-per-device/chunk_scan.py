"""Per-device running sums with jax.lax.scan inside jax.shard_map (check_vma on).

Why jnp.zeros(()) fails: with the replication check on, every value inside shard_map carries the set
of mesh axes it may vary over. The block of x is varying over "data" ({V:data}); a fresh
jnp.zeros(()) is invariant (the same on every device). carry + x_i is varying, so the scan body
returns a varying carry for an invariant one, and scan requires the carry's input and output types
to be equal. Make the initial carry varying with `jax.lax.pcast(..., "data", to="varying")` (no
communication; `jax.lax.pvary` is the removed old name), and give it x's dtype.
"""

import functools

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def _per_device(x_block: jax.Array) -> tuple[jax.Array, jax.Array]:
    """x_block: this device's chunk (n / 8,). Returns (its running sums, the global total)."""
    init = jax.lax.pcast(jnp.zeros((), x_block.dtype), "data", to="varying")

    def step(carry: jax.Array, xi: jax.Array) -> tuple[jax.Array, jax.Array]:
        carry = carry + xi
        return carry, carry

    chunk_total, running = jax.lax.scan(step, init, x_block)
    total = jax.lax.psum(chunk_total, "data")  # invariant over "data": may be returned with P()
    return running, total


@functools.lru_cache(maxsize=None)
def _compiled(mesh: jax.sharding.Mesh):
    return jax.jit(
        jax.shard_map(_per_device, mesh=mesh, in_specs=P("data"), out_specs=(P("data"), P()))
    )


def chunk_running_sums(x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """(running, total): running (n,) split over "data" like x, each device's chunk restarting from
    zero; total the scalar sum of x, replicated."""
    return _compiled(mesh)(x)
