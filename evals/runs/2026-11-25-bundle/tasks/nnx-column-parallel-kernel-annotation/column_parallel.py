"""A column-parallel dense layer for Flax NNX, sharded over the "model" mesh axis along dout.

The split is recorded on each parameter as its `out_sharding` metadata (one mesh axis name, or None,
per array axis): `nnx.get_partition_spec(nnx.state(layer))` turns that metadata into PartitionSpecs,
which is what checkpointing (Orbax abstract targets) and optimizer-state sharding read. The arrays
are also placed on the mesh when the layer is built: a Variable created under `jax.set_mesh` with
`out_sharding=` is laid out by it at once (eager sharding is on by default), and the explicit
`jax.device_put` below makes that placement independent of the mesh's axis types.

Current spellings (flax 0.12.12): the metadata is `out_sharding=`; the older `sharding=` /
`sharding_names=` keywords are deprecated and warn. `variable.sharding` is the array's
NamedSharding, not the annotation; read the annotation with `variable.out_sharding`.

    mesh = jax.make_mesh((2, 4), ("data", "model"))
    layer = ColumnParallel(16, 32, mesh=mesh, rngs=nnx.Rngs(0))
    specs = nnx.get_partition_spec(nnx.state(layer))
    specs["kernel"].get_value()        # PartitionSpec(None, 'model')
    layer.kernel[...].sharding         # NamedSharding(mesh, P(None, 'model'))

Each device holds a (din, dout / 4) column block of the kernel and the matching dout / 4 entries of
the bias, so dout must be divisible by the size of the "model" axis. The output of `layer(x)` is
sharded along its last axis over "model" (no communication in this layer); a following
row-parallel layer would contract over that axis.
"""

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import NamedSharding, PartitionSpec as P

KERNEL_AXES = (None, "model")  # (din, dout): replicate din, split dout over "model"
BIAS_AXES = ("model",)  # (dout,): split the same way as the kernel's columns


class ColumnParallel(nnx.Module):
    """y = x @ kernel + bias, with kernel (din, dout) and bias (dout,) split over "model" along dout."""

    def __init__(self, din: int, dout: int, *, mesh: jax.sharding.Mesh, rngs: nnx.Rngs):
        model_size = mesh.shape["model"]
        if dout % model_size != 0:
            raise ValueError(f"dout={dout} is not divisible by the 'model' axis size {model_size}")

        kernel_value = nnx.initializers.lecun_normal()(rngs.params(), (din, dout), jnp.float32)
        bias_value = jnp.zeros((dout,), jnp.float32)

        with jax.set_mesh(mesh):
            kernel_value = jax.device_put(kernel_value, NamedSharding(mesh, P(*KERNEL_AXES)))
            bias_value = jax.device_put(bias_value, NamedSharding(mesh, P(*BIAS_AXES)))
            # The annotation lives on the Variable, so nnx.get_partition_spec can recover it.
            self.kernel = nnx.Param(kernel_value, out_sharding=KERNEL_AXES)
            self.bias = nnx.Param(bias_value, out_sharding=BIAS_AXES)

    def __call__(self, x: jax.Array) -> jax.Array:
        """x: (batch, din) -> (batch, dout), the dout axis split over "model"."""
        return x @ self.kernel[...] + self.bias[...]
