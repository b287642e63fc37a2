"""Per-device running sums with lax.scan inside jax.shard_map (replication checking on).

Why the scan complained
-----------------------
With check_vma (the default), every value inside shard_map has a type that records over which mesh
axes it varies. `jnp.zeros(())` is a constant, so it is *device-invariant*; the chunk of x is
*device-varying* over "data", and so is `carry + x_i`. The carry would therefore enter the scan as
invariant and leave it as varying, and scan requires the carry type to be the same on input and
output. The fix is to declare the initial zero carry varying over "data" with `jax.lax.pvary`
(a no-op at runtime). Each device then starts its own chunk from zero.
The total is the psum over "data" of the per-device sums (the final carries), which is invariant,
hence out_specs P().
"""

import functools

import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P

_AXIS = "data"


def _varying(x, axis_name):
    """Mark a device-invariant value as varying over `axis_name` (lax.pvary / lax.pcast)."""
    pvary = getattr(jax.lax, "pvary", None)
    if pvary is not None:
        return pvary(x, axis_name)
    return jax.lax.pcast(x, axis_name, to="varying")


def _per_device(chunk):
    def step(carry, xi):
        carry = carry + xi
        return carry, carry

    zero = _varying(jnp.zeros((), chunk.dtype), _AXIS)  # same type as the carry after a step
    chunk_total, running = jax.lax.scan(step, zero, chunk)
    total = jax.lax.psum(chunk_total, _AXIS)
    return running, total


@functools.partial(jax.jit, static_argnames=("mesh",))
def _chunk_running_sums(x, mesh):
    return jax.shard_map(
        _per_device,
        mesh=mesh,
        in_specs=P(_AXIS),
        out_specs=(P(_AXIS), P()),
    )(x)


def chunk_running_sums(x: jax.Array, mesh: jax.sharding.Mesh) -> tuple[jax.Array, jax.Array]:
    """(running, total): running sums restarting at every device's chunk, and the sum of x."""
    return _chunk_running_sums(x, mesh)


if __name__ == "__main__":
    import numpy as np
    from jax.sharding import NamedSharding

    n_dev = jax.device_count()
    mesh = jax.make_mesh((n_dev,), (_AXIS,))
    x_np = np.arange(4 * n_dev, dtype=np.float32)
    x = jax.device_put(x_np, NamedSharding(mesh, P(_AXIS)))
    running, total = chunk_running_sums(x, mesh)
    ref = np.concatenate([np.cumsum(c) for c in np.split(x_np, n_dev)])
    print(np.allclose(running, ref), float(total), x_np.sum(), running.sharding)
