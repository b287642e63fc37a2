"""Per-device "attention sink" log-sum-exp through jax.shard_map on a 2 x 4 Explicit mesh.

out[b, h] = log(sum_d exp(q[b, h, d]) + exp(sink[h]))

The trap is the sink vector. On Explicit mesh axes (the `jax.make_mesh` default), `jax.shard_map`
*checks* each input's sharding against `in_specs` and raises ValueError on a mismatch ("in_specs
passed to shard_map: P('tensor',) does not match the specs of the input: P(None,)"); it no longer
reshards the input for you (that changed in jax 0.9.1). And leaving `in_specs` out would infer P()
for a replicated sink, so every device would get the whole (heads,) vector instead of its slice.

So the wrapper first moves the inputs to exactly the layout the kernel wants with `jax.reshard`:
a replicated sink is sliced locally (each device keeps its 1/4 of the heads: no communication), and a
sink that already arrives split P("tensor") passes through unchanged (reshard to the same sharding is
a no-op). Then shard_map hands each device its (batch/2, heads/4, dim) block of q and the matching
(heads/4,) slice of sink, and the per-device body (the stand-in for the Pallas kernel) runs on blocks.
Works eagerly and inside jax.jit (jax.reshard is an ordinary traced operation).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

Q_SPEC = P("data", "tensor", None)
SINK_SPEC = P("tensor")
OUT_SPEC = P("data", "tensor")


def _sink_logsumexp_block(q_block: jax.Array, sink_block: jax.Array) -> jax.Array:
    """Per-device kernel body: q_block (b, h, dim), sink_block (h,) -> (b, h). Numerically stable."""
    sink = sink_block[None, :]  # (1, h), broadcast over the rows
    m = jnp.maximum(jnp.max(q_block, axis=-1), sink)  # (b, h) running max, includes the sink
    total = jnp.sum(jnp.exp(q_block - m[..., None]), axis=-1) + jnp.exp(sink - m)
    return m + jnp.log(total)


def sink_logsumexp(q: jax.Array, sink: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    """q: float32 (batch, heads, dim) on P("data", "tensor", None); sink: float32 (heads,) on P() or
    P("tensor"). Returns float32 (batch, heads) sharded P("data", "tensor")."""
    # Put the inputs on the layout the kernel's in_specs name (no-op when already there).
    q = jax.reshard(q, NamedSharding(mesh, Q_SPEC))
    sink = jax.reshard(sink, NamedSharding(mesh, SINK_SPEC))  # P() -> P("tensor"): a local slice
    kernel = jax.shard_map(
        _sink_logsumexp_block,
        mesh=mesh,
        in_specs=(Q_SPEC, SINK_SPEC),
        out_specs=OUT_SPEC,
    )
    return kernel(q, sink)


if __name__ == "__main__":
    # XLA_FLAGS=--xla_force_host_platform_device_count=8 python sink_kernel.py
    import numpy as np

    mesh = jax.make_mesh((2, 4), ("data", "tensor"))
    rng = np.random.default_rng(0)
    q_np = (5 * rng.normal(size=(6, 8, 16))).astype(np.float32)
    sink_np = rng.normal(size=8).astype(np.float32)
    ref = np.log(np.exp(q_np.astype(np.float64)).sum(-1) + np.exp(sink_np.astype(np.float64))[None, :])

    q = jax.device_put(q_np, NamedSharding(mesh, Q_SPEC))
    for sink_spec in (P(), P("tensor")):
        sink = jax.device_put(sink_np, NamedSharding(mesh, sink_spec))
        for fn in (sink_logsumexp, jax.jit(sink_logsumexp, static_argnames="mesh")):
            out = fn(q, sink, mesh)
            assert out.shape == (6, 8) and out.dtype == jnp.float32
            assert out.sharding.is_equivalent_to(NamedSharding(mesh, OUT_SPEC), 2)
            np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    print("ok for replicated and split sink, eager and jitted")
