"""Per-device running sums with lax.scan inside jax.shard_map, plus the global total.

Why `jax.lax.scan(step, jnp.zeros(()), block)` fails inside shard_map: with replication checking on
(check_vma=True, the default) every value's type records the mesh axes it may vary over. The block
of x is *varying* over "data" (each device holds different numbers), while `jnp.zeros(())` is a
constant, *invariant* over "data". After one step the carry `0 + x[i]` is varying, so the carry's
output type (float32[]{V:data}) differs from its input type (float32[]) and scan rejects it, just as
it would for a shape or dtype mismatch.

The fix is to give the initial carry the type the body returns: cast the zero to varying over
"data" with `jax.lax.pcast(..., "data", to="varying")` (no communication; it only changes the type;
it replaces the removed `jax.lax.pvary`). The check stays on. The global total is the `psum` of each
device's final carry (its chunk sum), which is invariant and can be returned with out_specs=P().
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def _per_device(block: jax.Array) -> tuple[jax.Array, jax.Array]:
    """block: this device's chunk of x. Returns (its running sums, the sum over all devices)."""
    init = jax.lax.pcast(jnp.zeros((), block.dtype), "data", to="varying")  # match the carry's type

    def step(carry, value):
        carry = carry + value
        return carry, carry

    chunk_total, running = jax.lax.scan(step, init, block)  # each chunk restarts from zero
    total = jax.lax.psum(chunk_total, "data")  # invariant over "data": replicated
    return running, total


@partial(jax.jit, static_argnames="mesh")
def _chunk_running_sums(x, mesh):
    return jax.shard_map(
        _per_device,
        mesh=mesh,
        in_specs=P("data"),
        out_specs=(P("data"), P()),  # check_vma left at its default (True)
    )(x)


def chunk_running_sums(x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """x: float32 (n,) split over "data". Returns (running, total): running (n,) split like x, the
    cumulative sum within each device's chunk; total, the scalar sum of x."""
    return _chunk_running_sums(x, mesh)


if __name__ == "__main__":
    # XLA_FLAGS=--xla_force_host_platform_device_count=8 python chunk_scan.py
    import numpy as np
    from jax.sharding import NamedSharding

    mesh = jax.make_mesh((8,), ("data",))
    x_np = np.arange(1, 33, dtype=np.float32)
    x = jax.device_put(x_np, NamedSharding(mesh, P("data")))
    running, total = chunk_running_sums(x, mesh)
    ref = np.cumsum(x_np.reshape(8, -1), axis=1).reshape(-1)
    np.testing.assert_allclose(running, ref)
    assert float(total) == x_np.sum() and total.shape == ()
    assert running.sharding.is_equivalent_to(NamedSharding(mesh, P("data")), 1)
    print(running, total)
