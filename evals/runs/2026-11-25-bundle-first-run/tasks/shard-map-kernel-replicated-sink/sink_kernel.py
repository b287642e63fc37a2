"""Per-device "attention sink" log-sum-exp through jax.shard_map on a 2 x 4 Explicit mesh.

out[b, h] = log(sum_d exp(q[b, h, d]) + exp(sink[h]))

Why the inputs are resharded before shard_map: on a mesh whose axes are all ``AxisType.Explicit``,
``jax.shard_map`` *checks* each input's sharding (part of its type) against ``in_specs``; it does not
move the data (that changed in jax 0.9.1). A sink that arrives replicated (``P()``) would fail with
``ValueError: in_specs passed to shard_map: P('tensor',) does not match the specs of the input:
P(None,)``. ``jax.reshard`` to ``P("tensor")`` first makes both placements work. Going from
replicated to split is a local slice on each device (no collective), and resharding an input that
already has the target sharding is a no-op; under ``jax.jit`` it is simply part of the program.
"""

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P

__all__ = ["sink_logsumexp"]

Q_SPEC = P("data", "tensor", None)
SINK_SPEC = P("tensor")
OUT_SPEC = P("data", "tensor")


def _sink_logsumexp_block(q_block: jax.Array, sink_block: jax.Array) -> jax.Array:
    """Per-device body (stand-in for the Pallas kernel).

    q_block: (batch/2, heads/4, dim) float32, this device's block of q.
    sink_block: (heads/4,) float32, the sink logits of the same heads.
    Returns (batch/2, heads/4): log(sum_d exp(q) + exp(sink)), computed stably by subtracting the
    running maximum over both the dim entries and the sink.
    """
    sink_row = sink_block[None, :]  # (1, heads/4), broadcast over the batch rows
    peak = jnp.maximum(jnp.max(q_block, axis=-1), sink_row)  # (batch/2, heads/4)
    total = jnp.sum(jnp.exp(q_block - peak[..., None]), axis=-1) + jnp.exp(sink_row - peak)
    return peak + jnp.log(total)


def sink_logsumexp(q: jax.Array, sink: jax.Array, mesh: jax.sharding.Mesh) -> jax.Array:
    """log(sum_d exp(q[b, h, d]) + exp(sink[h])) as a float32 (batch, heads) array on ``mesh``.

    mesh: 2 x 4, axes ("data", "tensor"), both Explicit. q: (batch, heads, dim) placed with
    P("data", "tensor", None). sink: (heads,), replicated (P()) or split (P("tensor")).
    The result is sharded P("data", "tensor"). Works eagerly and inside ``jax.jit``.
    """
    # Put every input where in_specs says it is (a no-op for inputs already placed that way).
    q = jax.reshard(q, NamedSharding(mesh, Q_SPEC))
    sink = jax.reshard(sink, NamedSharding(mesh, SINK_SPEC))

    per_device = jax.shard_map(
        _sink_logsumexp_block,
        mesh=mesh,
        in_specs=(Q_SPEC, SINK_SPEC),
        out_specs=OUT_SPEC,
    )
    # Each device sees one (batch/2, heads/4, dim) block of q and the matching (heads/4,) sink slice;
    # the sink slice is the same on both "data" rows, which shard_map handles (it is invariant over
    # "data" and is cast to varying automatically where it meets the q block).
    return per_device(q, sink)
