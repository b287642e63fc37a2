"""Feature Gram matrix X^T X of a row-sharded X, replicated on every device.

X is (n, d) with its rows split over the 8 devices of `jax.make_mesh((8,), ("data",))`. In jax 0.12
`make_mesh` creates **Explicit** axes by default, so shardings are part of the array types and JAX
resolves them at trace time. Contracting over the row dimension means both operands are split along
the contracted axis: each device can only compute a partial sum X_i^T X_i of its own rows, and JAX
refuses to guess what to do with the partial sums (sum them and replicate? scatter?):

    x.T @ x   # ShardingTypeError: Contracting dimensions are sharded and it is ambiguous how the
              # output should be sharded. Please specify the output sharding via `out_sharding`.

(`jax.lax.with_sharding_constraint` would not help: on Explicit axes it is an assertion.)

The fix is to state the output sharding, `out_sharding=P()` (replicated). XLA then computes the
local (d, d) partial product on each device and sums them with one all-reduce of d*d floats; the
tall matrix itself is never gathered anywhere.

A bare `P()` needs a current mesh, so the jitted function is called under `jax.set_mesh(mesh)`,
with the mesh taken from the input's own sharding. Every call with the same shape/sharding reuses
one compilation.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P


@jax.jit
def _gram(x: jax.Array) -> jax.Array:
    # Sum over rows n (sharded on "data"): local partial products + one all-reduce -> replicated.
    return jnp.einsum("nd,ne->de", x, x, out_sharding=P())


def gram(x: jax.Array) -> jax.Array:
    """x.T @ x for x: float32 (n, d) placed with NamedSharding(mesh, P("data")).

    Returns a (d, d) float32 array fully replicated over the same devices (NamedSharding(mesh, P())),
    computed in a jitted function.
    """
    sharding = x.sharding
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"expected x placed with a NamedSharding, got {type(sharding).__name__}")
    with jax.set_mesh(sharding.mesh):
        return _gram(x)


if __name__ == "__main__":
    import re

    import numpy as np

    # Run with XLA_FLAGS=--xla_force_host_platform_device_count=8 on a CPU.
    mesh = jax.make_mesh((8,), ("data",))
    host = np.random.default_rng(0).normal(size=(1024, 5)).astype(np.float32)
    x = jax.device_put(host, NamedSharding(mesh, P("data")))
    g = gram(x)
    print(jax.typeof(g), g.sharding)  # float32[5,5]  NamedSharding(mesh, P())
    assert g.sharding.is_fully_replicated
    np.testing.assert_allclose(np.asarray(g), host.T.astype(np.float64) @ host, rtol=1e-4, atol=1e-3)
    with jax.set_mesh(mesh):
        hlo = _gram.lower(x).compile().as_text()
    print(len(re.findall(r"\ball-reduce(?:-start)?\(", hlo)), "all-reduce;",
          len(re.findall(r"\ball-gather(?:-start)?\(", hlo)), "all-gather")  # 1 all-reduce; 0 all-gather
