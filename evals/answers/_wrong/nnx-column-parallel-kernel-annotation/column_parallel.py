"""The flax 0.10 form: the annotation under the metadata name `sharding`, the array placed by hand."""

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P


class ColumnParallel(nnx.Module):
    def __init__(self, din: int, dout: int, *, mesh: jax.sharding.Mesh, rngs: nnx.Rngs):
        init = nnx.initializers.lecun_normal()
        kernel = jax.device_put(init(rngs.params(), (din, dout)), NamedSharding(mesh, P(None, "model")))
        bias = jax.device_put(jnp.zeros((dout,)), NamedSharding(mesh, P("model")))
        self.kernel = nnx.Param(kernel, sharding=(None, "model"))
        self.bias = nnx.Param(bias, sharding=("model",))

    def __call__(self, x: jax.Array) -> jax.Array:
        return x @ self.kernel.value + self.bias.value
