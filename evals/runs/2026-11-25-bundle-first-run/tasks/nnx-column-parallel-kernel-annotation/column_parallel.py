"""A column-parallel dense layer for Flax NNX, with the split recorded on its parameters.

The kernel ``(din, dout)`` and the bias ``(dout,)`` are split over the ``"model"`` mesh axis along
``dout``. Two things make that work with the rest of a Flax 0.12 code base:

* **The annotation lives on the Variable** as its ``out_sharding`` metadata (one mesh axis name or
  ``None`` per array axis). ``nnx.get_partition_spec(nnx.state(layer))`` reads it and returns
  ``P(None, "model")`` for the kernel and ``P("model")`` for the bias, which is what checkpointing
  (Orbax abstract targets) and optimizer-state sharding code consume. (``sharding=`` and
  ``sharding_names=`` are the deprecated spellings of this metadata; ``variable.sharding`` is the
  array's ``NamedSharding``, not the annotation.)
* **The arrays are laid out at creation.** The parameters are created under ``jax.set_mesh(mesh)``,
  where a Variable with ``out_sharding`` metadata places its value on the mesh eagerly; the value is
  also put there explicitly with ``jax.device_put`` so the layout does not depend on that default.

Usage::

    mesh = jax.make_mesh((2, 4), ("data", "model"))
    layer = ColumnParallel(16, 32, mesh=mesh, rngs=nnx.Rngs(0))
    specs = nnx.get_partition_spec(nnx.state(layer))
    assert specs["kernel"].get_value() == P(None, "model")
    assert layer.kernel[...].sharding == NamedSharding(mesh, P(None, "model"))
    y = layer(x)   # (batch, dout), columns split over "model"

The forward pass needs no communication: each device multiplies the (replicated or data-split) input
by its own block of columns and adds its own slice of the bias; the output comes out split over
``"model"`` along its last axis, ready for a row-parallel layer that follows.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

KERNEL_AXES = (None, "model")  # (din, dout): columns split over "model"
BIAS_AXES = ("model",)  # (dout,): split the same way


class ColumnParallel(nnx.Module):
    """``y = x @ kernel + bias`` with kernel ``(din, dout)`` and bias ``(dout,)`` split over ``"model"``."""

    def __init__(
        self,
        din: int,
        dout: int,
        *,
        mesh: jax.sharding.Mesh,
        rngs: nnx.Rngs,
        param_dtype: jnp.dtype = jnp.float32,
    ):
        if "model" not in mesh.axis_names:
            raise ValueError(f"mesh needs a 'model' axis, got axes {mesh.axis_names}")
        model_size = mesh.shape["model"]
        if dout % model_size:
            raise ValueError(f"dout={dout} is not divisible by the 'model' axis size {model_size}")

        self.din = din
        self.dout = dout

        kernel_value = nnx.initializers.lecun_normal()(rngs.params(), (din, dout), param_dtype)
        bias_value = jnp.zeros((dout,), param_dtype)

        with jax.set_mesh(mesh):
            # Place the arrays on the mesh now, then wrap them in Params that carry the annotation.
            # Under the mesh context the Param's eager sharding would place them too; device_put makes
            # the layout explicit (re-placing an array that already has this sharding is a no-op).
            self.kernel = nnx.Param(
                jax.device_put(kernel_value, NamedSharding(mesh, P(*KERNEL_AXES))),
                out_sharding=KERNEL_AXES,
            )
            self.bias = nnx.Param(
                jax.device_put(bias_value, NamedSharding(mesh, P(*BIAS_AXES))),
                out_sharding=BIAS_AXES,
            )

    def __call__(self, x: jax.Array) -> jax.Array:
        """``x`` of shape ``(batch, din)`` -> ``(batch, dout)``, the last axis split over ``"model"``."""
        return x @ self.kernel[...] + self.bias[...]
