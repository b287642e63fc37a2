"""A column-parallel dense layer: `out_sharding` metadata on the Params, placed on the mesh at creation."""

import jax
import jax.numpy as jnp
from flax import nnx


class ColumnParallel(nnx.Module):
    def __init__(self, din: int, dout: int, *, mesh: jax.sharding.Mesh, rngs: nnx.Rngs):
        init = nnx.initializers.lecun_normal()
        # With a mesh in the metadata (or under jax.set_mesh) the Variable shards its array eagerly.
        self.kernel = nnx.Param(init(rngs.params(), (din, dout)), out_sharding=(None, "model"), mesh=mesh)
        self.bias = nnx.Param(jnp.zeros((dout,)), out_sharding=("model",), mesh=mesh)

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.kernel[...] + self.bias[...]
