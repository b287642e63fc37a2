"""RunningCenter: subtract the batch mean (training) or its moving average (evaluation), then scale.

* ``scale`` is an ``nnx.Param`` (trainable).
* ``running_mean`` is an ``nnx.BatchStat``: not a Param, so ``nnx.grad`` / ``nnx.Optimizer(...,
  wrt=nnx.Param)`` leave it alone, but it is ordinary model state, so assigning to its ``.value`` inside
  ``nnx.jit`` (or other NNX transforms) is propagated back to the module after the call.
* ``use_running_average`` follows the NNX convention, so ``model.eval()`` / ``model.train()`` switch
  it like they do for ``nnx.BatchNorm``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx


class RunningCenter(nnx.Module):
    def __init__(self, features: int, momentum: float = 0.9, *, rngs: nnx.Rngs):
        self.scale = nnx.Param(jnp.ones((features,), jnp.float32))
        self.running_mean = nnx.BatchStat(jnp.zeros((features,), jnp.float32))
        self.momentum = momentum
        self.use_running_average = False

    def __call__(self, x: jax.Array) -> jax.Array:
        if self.use_running_average:
            return (x - self.running_mean.value) * self.scale.value

        m = jnp.mean(x, axis=0)
        old = self.running_mean.value
        self.running_mean.value = (self.momentum * old + (1.0 - self.momentum) * m).astype(old.dtype)
        return (x - m) * self.scale.value
