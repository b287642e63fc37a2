"""Batch centering with an exponential moving average of the batch means, read and written with [...]."""

import jax
import jax.numpy as jnp
from flax import nnx


class RunningCenter(nnx.Module):
    def __init__(self, features: int, momentum: float = 0.9, *, rngs: nnx.Rngs):
        self.scale = nnx.Param(jnp.ones((features,)))
        self.running_mean = nnx.BatchStat(jnp.zeros((features,)))
        self.momentum = momentum
        self.use_running_average = False

    def __call__(self, x: jax.Array) -> jax.Array:
        if self.use_running_average:
            mean = self.running_mean[...]
        else:
            mean = jnp.mean(x, axis=0)
            self.running_mean[...] = self.momentum * self.running_mean[...] + (1 - self.momentum) * mean
        return (x - mean) * self.scale[...]
