"""Column-parallel dense layer for Flax NNX with the sharding recorded on its parameters.

``nnx.with_partitioning(initializer, spec, mesh=mesh)`` wraps an initializer so that the
``nnx.Param`` built from its output carries the partitioning as Variable metadata; that metadata is
what ``nnx.get_partition_spec(nnx.state(layer))`` reads (and what checkpoint / optimizer code built on
NNX uses). The values are additionally placed on ``mesh`` with the matching ``NamedSharding`` right
away, so the arrays are laid out column-parallel from creation (a no-op if Flax already placed them).

    kernel (din, dout): P(None, "model")   -- columns (output features) split over "model"
    bias   (dout,)    : P("model")
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P

KERNEL_AXES = (None, "model")
BIAS_AXES = ("model",)


class ColumnParallel(nnx.Module):
    def __init__(self, din: int, dout: int, *, mesh: jax.sharding.Mesh, rngs: nnx.Rngs):
        kernel_init = nnx.with_partitioning(nnx.initializers.lecun_normal(), KERNEL_AXES, mesh=mesh)
        bias_init = nnx.with_partitioning(nnx.initializers.zeros_init(), BIAS_AXES, mesh=mesh)

        self.kernel = nnx.Param(kernel_init(rngs.params(), (din, dout), jnp.float32))
        self.bias = nnx.Param(bias_init(rngs.params(), (dout,), jnp.float32))

        # Lay the arrays out on the mesh exactly as annotated.
        self.kernel.value = jax.device_put(self.kernel.value, NamedSharding(mesh, P(*KERNEL_AXES)))
        self.bias.value = jax.device_put(self.bias.value, NamedSharding(mesh, P(*BIAS_AXES)))

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.kernel.value + self.bias.value


if __name__ == "__main__":
    mesh = jax.make_mesh((1, len(jax.devices())), ("data", "model"))
    layer = ColumnParallel(8, 4 * len(jax.devices()), mesh=mesh, rngs=nnx.Rngs(0))
    print(nnx.get_partition_spec(nnx.state(layer)))
    print(layer.kernel.value.sharding, layer.bias.value.sharding)
    print(layer(jnp.ones((2, 8))).shape)
