"""log(sum_d exp(q[b, h, d]) + exp(sink[h])) computed per device through jax.shard_map.

Layout
------
mesh : 2 x 4, axes ("data", "tensor"), both AxisType.Explicit.
q    : (batch, heads, dim)  sharded P("data", "tensor", None)
sink : (heads,)             replicated P() or split P("tensor")
out  : (batch, heads)       sharded P("data", "tensor")

The important part is the in_spec of the sink: it must be P("tensor"), *not* P(). With P() every
device's block would be the whole (heads,) vector, and the body would pair its local heads
[k*heads/4, (k+1)*heads/4) with sink entries [0, heads/4) (or fail on a shape mismatch). With
P("tensor") the device at tensor index k gets exactly sink[k*heads/4:(k+1)*heads/4], which is
the slice that matches its block of q.

Because the mesh axes are Explicit, the sharding is part of each array's type, so before the
shard_map the inputs are put into the layout the in_specs describe with jax.sharding.reshard.
For a replicated sink that is a local slice (no communication); for a sink that already arrives
as P("tensor") (or q already as P("data", "tensor", None)) it is a no-op. reshard works both
eagerly and under jax.jit.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

__all__ = ["sink_logsumexp", "sink_logsumexp_block"]

Q_SPEC = P("data", "tensor", None)
SINK_SPEC = P("tensor")
OUT_SPEC = P("data", "tensor")


def sink_logsumexp_block(q_blk: jax.Array, sink_blk: jax.Array) -> jax.Array:
    """Per-device body (stand-in for the Pallas kernel).

    q_blk: (batch/2, heads/4, dim), sink_blk: (heads/4,) -> (batch/2, heads/4).
    Numerically stable: subtract the running max over the dim entries and the sink.
    """
    q_blk = q_blk.astype(jnp.float32)
    sink_blk = sink_blk.astype(jnp.float32)
    sink_b = sink_blk[None, :]                                   # (1, h_loc)
    m = jnp.maximum(jnp.max(q_blk, axis=-1), sink_b)             # (b_loc, h_loc)
    m = jax.lax.stop_gradient(m)
    total = jnp.sum(jnp.exp(q_blk - m[..., None]), axis=-1) + jnp.exp(sink_b - m)
    return (m + jnp.log(total)).astype(jnp.float32)


def _shard_map(body, *, mesh, in_specs, out_specs):
    """jax.shard_map (current API); falls back to the old experimental one if needed."""
    if hasattr(jax, "shard_map"):
        return jax.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
    from jax.experimental.shard_map import shard_map as _old_shard_map  # pragma: no cover

    return _old_shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)


def sink_logsumexp(q: jax.Array, sink: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    """out[b, h] = log(sum_d exp(q[b, h, d]) + exp(sink[h])), sharded P("data", "tensor").

    Works eagerly and inside jax.jit. The shard_map body sees one (batch/2, heads/4, dim) block
    of q and the matching (heads/4,) slice of sink.
    """
    if q.ndim != 3:
        raise ValueError(f"q must be (batch, heads, dim), got shape {q.shape}")
    batch, heads, _ = q.shape
    if sink.shape != (heads,):
        raise ValueError(f"sink must have shape ({heads},), got {sink.shape}")
    n_data = mesh.shape["data"]
    n_tensor = mesh.shape["tensor"]
    if batch % n_data or heads % n_tensor:
        raise ValueError(
            f"batch ({batch}) must be divisible by {n_data} and heads ({heads}) by {n_tensor}"
        )

    q = jnp.asarray(q, dtype=jnp.float32)
    sink = jnp.asarray(sink, dtype=jnp.float32)

    # Bring both inputs into exactly the layout the in_specs describe. A replicated sink is
    # sliced locally per device; an already-split sink / correctly sharded q is left alone.
    q = jax.sharding.reshard(q, NamedSharding(mesh, Q_SPEC))
    sink = jax.sharding.reshard(sink, NamedSharding(mesh, SINK_SPEC))

    kernel = _shard_map(
        sink_logsumexp_block,
        mesh=mesh,
        in_specs=(Q_SPEC, SINK_SPEC),
        out_specs=OUT_SPEC,
    )
    return kernel(q, sink)
