"""RunningCenter: subtract batch mean (train) / running mean (eval), then scale."""
import jax
import jax.numpy as jnp
from flax import nnx


class RunningCenter(nnx.Module):
    def __init__(self, features: int, momentum: float = 0.9, *, rngs: nnx.Rngs):
        self.features = features
        self.momentum = momentum
        # learnable per-feature scale
        self.scale = nnx.Param(jnp.ones((features,)))
        # moving average: a BatchStat (not nnx.Param), so optimizers / nnx.grad
        # (which filter nnx.Param) never treat it as trainable
        self.running_mean = nnx.BatchStat(jnp.zeros((features,)))
        # toggled by model.train() / model.eval() (nnx sets `use_running_average`)
        self.use_running_average = False

    def __call__(self, x: jax.Array) -> jax.Array:
        if self.use_running_average:
            mean = self.running_mean[...]
        else:
            mean = jnp.mean(x, axis=0)
            # in-place Variable update: nnx.jit / nnx.grad etc. propagate it back
            # to the module outside the transform
            self.running_mean[...] = (
                self.momentum * self.running_mean[...] + (1.0 - self.momentum) * mean
            )
        return (x - mean) * self.scale[...]
