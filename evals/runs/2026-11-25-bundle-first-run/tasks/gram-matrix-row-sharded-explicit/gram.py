"""Feature Gram matrix X^T X of a row-sharded X, replicated on every device.

``jax.make_mesh`` gives ``Explicit`` axes by default (jax 0.12), so shardings are part of the array
types and JAX refuses to guess an ambiguous one. In ``x.T @ x`` both operands are split along the
contracted dimension (the rows, over ``"data"``): every device holds a partial ``d x d`` sum, and a
plain ``x.T @ x`` raises ``ShardingTypeError: Contracting dimensions are sharded and it is ambiguous
how the output should be sharded``. Saying which output sharding you want resolves it:
``out_sharding=P()`` (replicated) makes XLA compute the local ``x_i^T x_i`` on each device and sum
the partial results with one all-reduce of the small ``d x d`` matrix. X itself is never gathered.

The bare ``P()`` needs the mesh in context, so the jitted function runs under
``jax.set_mesh(mesh)``, with the mesh taken from ``x``'s own sharding.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import AxisType, NamedSharding, PartitionSpec as P


@jax.jit
def _gram_explicit(x: jax.Array) -> jax.Array:
    # Contract the sharded row dimension; ask for a replicated (d, d) result: local matmul + all-reduce.
    return jnp.einsum("nd,ne->de", x, x, out_sharding=P())


@jax.jit
def _gram_auto(x: jax.Array) -> jax.Array:
    # Auto axes (only if the caller built such a mesh): the partitioner decides, the constraint guides it.
    return jax.lax.with_sharding_constraint(jnp.einsum("nd,ne->de", x, x), P())


def gram(x: jax.Array) -> jax.Array:
    """Return ``x.T @ x`` (shape ``(d, d)``), fully replicated over the devices of ``x``'s mesh.

    ``x``: float32 ``(n, d)``, placed with ``NamedSharding(mesh, P("data"))`` on
    ``mesh = jax.make_mesh((8,), ("data",))``. Computed in a jitted function.
    """
    mesh = x.sharding.mesh
    with jax.set_mesh(mesh):
        if all(t == AxisType.Explicit for t in mesh.axis_types):
            return _gram_explicit(x)
        return _gram_auto(x)


if __name__ == "__main__":
    import os
    import re

    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import numpy as np

    mesh = jax.make_mesh((8,), ("data",))
    data = np.random.default_rng(0).normal(size=(1024, 5)).astype(np.float32)
    x = jax.device_put(data, NamedSharding(mesh, P("data")))

    g = gram(x)
    print(g.shape, g.sharding.spec, jax.typeof(g))  # (5, 5) P() float32[5,5]
    assert g.sharding.is_fully_replicated and len(g.sharding.device_set) == 8
    np.testing.assert_allclose(np.asarray(g), data.T @ data, rtol=1e-4, atol=1e-3)

    with jax.set_mesh(mesh):
        hlo = _gram_explicit.lower(x).compile().as_text()
    print("all-reduce:", len(re.findall(r"\ball-reduce(?:-start)?\(", hlo)),
          "all-gather:", len(re.findall(r"\ball-gather(?:-start)?\(", hlo)))
