"""RunningCenter: a Flax NNX layer that centres its input and keeps a running mean of the batch means.

- `scale` is an `nnx.Param`: trained by `nnx.grad` and by an optimizer with `wrt=nnx.Param`.
- `running_mean` is an `nnx.BatchStat`: state, not a parameter. `nnx.grad` does not differentiate
  it and `nnx.Optimizer(..., wrt=nnx.Param)` never touches it.
- The update is a write `self.running_mean[...] = ...` (not `.value`, which is deprecated). `nnx.jit`
  (and `nnx.value_and_grad`, `nnx.scan`, ...) carry such writes back to the Python object, so the
  update survives compiled calls. Plain `jax.jit` on the module would silently drop it; use
  `nnx.jit`, or split/merge and return the new state.
- `use_running_average` is a plain bool attribute, like BatchNorm's, so `model.eval()` /
  `model.train()` and `nnx.view(model, use_running_average=True)` switch it. It can also be
  overridden per call: `layer(x, use_running_average=True)`.
"""

import jax
import jax.numpy as jnp
from flax import nnx


class RunningCenter(nnx.Module):
    """(x - mean) * scale; the mean is the batch mean in training and a running average in evaluation."""

    def __init__(self, features: int, momentum: float = 0.9, *, rngs: nnx.Rngs):
        del rngs  # nothing random to initialise; kept for the usual NNX constructor signature
        self.features = features
        self.momentum = momentum
        self.scale = nnx.Param(jnp.ones((features,), jnp.float32))
        self.running_mean = nnx.BatchStat(jnp.zeros((features,), jnp.float32))
        self.use_running_average = False

    def __call__(self, x: jax.Array, *, use_running_average: bool | None = None) -> jax.Array:
        """x: (batch, features).

        Training (use_running_average False): m = mean(x, axis=0);
            running_mean <- momentum * running_mean + (1 - momentum) * m; returns (x - m) * scale.
        Evaluation (use_running_average True): returns (x - running_mean) * scale; state unchanged.
        """
        if use_running_average is None:
            use_running_average = self.use_running_average

        if use_running_average:
            return (x - self.running_mean[...]) * self.scale[...]

        m = jnp.mean(x, axis=0)
        # The running average is statistics, not part of the differentiated computation.
        m_stat = jax.lax.stop_gradient(m).astype(self.running_mean[...].dtype)
        self.running_mean[...] = self.momentum * self.running_mean[...] + (1.0 - self.momentum) * m_stat
        return (x - m) * self.scale[...]
