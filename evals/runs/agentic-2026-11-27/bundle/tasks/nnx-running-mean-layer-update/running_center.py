"""RunningCenter: subtract the batch mean (training) or its moving average (evaluation), then scale.

- `scale` is an nnx.Param (trained by nnx.Optimizer(..., wrt=nnx.Param), differentiated by nnx.grad).
- `running_mean` is an nnx.BatchStat: not a Param, so neither nnx.grad nor the optimizer touch it,
  but it is part of the model's state. It is written in place with `[...] =`, and nnx.jit /
  nnx.value_and_grad carry the new value out of the traced function back to the Python module.
  (Under plain jax.jit, use nnx.split / nnx.merge and return nnx.state(model), then nnx.update.)
- Mode: `use_running_average` is a static attribute, like nnx.BatchNorm's. model.eval() /
  model.train() set it in place; nnx.view(model, use_running_average=True) returns an evaluation
  view sharing the same Variables (supported through `set_view`). A call-time
  `use_running_average=` argument overrides the attribute, as in nnx.BatchNorm.
"""

import jax
import jax.numpy as jnp
from flax import nnx


class RunningCenter(nnx.Module):
    """y = (x - mean) * scale, with mean the batch mean (training) or its EMA (evaluation)."""

    def __init__(self, features: int, momentum: float = 0.9, *, rngs: nnx.Rngs):
        # rngs is accepted for the usual NNX constructor signature; nothing here is random.
        self.features = features
        self.momentum = momentum
        self.scale = nnx.Param(jnp.ones((features,), jnp.float32))
        self.running_mean = nnx.BatchStat(jnp.zeros((features,), jnp.float32))
        self.use_running_average = False

    def set_view(self, use_running_average: bool | None = None) -> None:
        """Used by nnx.view(model, use_running_average=...)."""
        if use_running_average is not None:
            self.use_running_average = use_running_average

    def __call__(self, x: jax.Array, *, use_running_average: bool | None = None) -> jax.Array:
        if use_running_average is None:
            use_running_average = self.use_running_average
        if use_running_average:
            mean = self.running_mean[...]  # state unchanged
        else:
            mean = jnp.mean(x, axis=0)
            batch_mean = jax.lax.stop_gradient(mean)  # the statistic is not part of the gradient
            self.running_mean[...] = (
                self.momentum * self.running_mean[...] + (1.0 - self.momentum) * batch_mean
            ).astype(self.running_mean[...].dtype)
        return (x - mean) * self.scale[...]
