"""Feature Gram matrix X^T X of a row-sharded X, replicated on every device.

The contraction of X^T X runs over the rows, i.e. exactly over the sharded dimension. Written as
per-device code it is explicit and works the same whatever the mesh's axis types are: each device
computes the (d, d) Gram matrix of its own row block, and a ``psum`` over "data" adds the 8 partial
results, leaving the complete (small) result on every device. Only d*d numbers per device are
communicated; X itself never moves.

(With plain ``x.T @ x`` on a mesh with Explicit axes, JAX refuses to guess the output sharding of a
contraction over a sharded dimension and asks for ``out_sharding=``; the shard_map form avoids that
ambiguity and states the intended communication directly.)
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

try:  # JAX >= 0.6
    _shard_map = jax.shard_map
except AttributeError:  # pragma: no cover - older JAX
    from jax.experimental.shard_map import shard_map as _shard_map

AXIS = "data"


def _local_gram(x_block: jax.Array) -> jax.Array:
    partial = jnp.matmul(x_block.T, x_block, precision=jax.lax.Precision.HIGHEST)
    return jax.lax.psum(partial, AXIS)  # sum of the per-device partial Gram matrices


@functools.lru_cache(maxsize=None)
def _compiled_gram(mesh: Mesh):
    f = _shard_map(_local_gram, mesh=mesh, in_specs=P(AXIS, None), out_specs=P())
    return jax.jit(f, out_shardings=NamedSharding(mesh, P()))


def _mesh_of(x) -> Mesh:
    sharding = getattr(x, "sharding", None)
    mesh = getattr(sharding, "mesh", None)
    if isinstance(mesh, Mesh):
        return mesh
    return jax.make_mesh((8,), (AXIS,))


def gram(x: jax.Array) -> jax.Array:
    """x: float32 (n, d) sharded as P("data") -> x.T @ x, shape (d, d), fully replicated."""
    return _compiled_gram(_mesh_of(x))(x)
