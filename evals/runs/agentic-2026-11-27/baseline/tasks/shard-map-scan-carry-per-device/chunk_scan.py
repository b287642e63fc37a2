"""Per-device running sums with lax.scan inside jax.shard_map (check_vma on)."""
from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def chunk_running_sums(x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """Return (running, total).

    running: shape (n,), sharded over "data" like x; each device's chunk holds the
             cumulative sum of that chunk (restarting from zero on every device).
    total:   scalar sum of x, replicated.

    Why the plain version fails: inside shard_map with check_vma=True, the local
    chunk is typed as *varying* over "data", so `carry + x_i` is varying, while
    jnp.zeros(()) is *invariant* (same on every device). scan requires the carry's
    input and output types to match, including this varying-ness. Fix: mark the
    initial carry as varying over "data" with jax.lax.pcast(..., to="varying").
    """

    @partial(
        jax.shard_map,
        mesh=mesh,
        in_specs=P("data"),
        out_specs=(P("data"), P()),
        # check_vma left at its default (True)
    )
    def _per_device(chunk):
        def step(carry, xi):
            carry = carry + xi
            return carry, carry

        init = jax.lax.pcast(jnp.zeros((), chunk.dtype), "data", to="varying")
        chunk_total, running = jax.lax.scan(step, init, chunk)
        total = jax.lax.psum(chunk_total, "data")  # invariant: same on every device
        return running, total

    return _per_device(x)
