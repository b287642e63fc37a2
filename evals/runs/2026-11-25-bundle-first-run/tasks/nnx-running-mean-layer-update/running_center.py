"""RunningCenter: subtract the batch mean (training) or its moving average (evaluation), then scale.

Design, following how ``nnx.BatchNorm`` keeps its statistics:

* ``scale`` is an ``nnx.Param``: trained by ``nnx.Optimizer(model, tx, wrt=nnx.Param)`` and
  differentiated by ``nnx.grad``.
* ``running_mean`` is an ``nnx.BatchStat``: part of the model's state (saved in checkpoints, carried
  through ``nnx.jit``), but not a Param, so ``nnx.grad`` gives it no gradient and the optimizer never
  touches it.
* The update is an in-place Variable write, ``self.running_mean[...] = new``. ``nnx.jit`` (and
  ``nnx.grad`` / ``nnx.value_and_grad`` inside it) carry Variable writes out of the compiled function,
  so the moving average survives jitted train steps. (Under *plain* ``jax.jit`` a write changes only
  the traced copy: use ``nnx.jit``, or split/merge and return the state.)
* ``use_running_average`` is a plain bool attribute, the same flag BatchNorm uses, so
  ``model.eval()`` / ``model.train()`` and ``nnx.view(model, use_running_average=True)`` switch this
  layer together with the rest of the model. It can also be overridden per call.

Example::

    layer = RunningCenter(4, momentum=0.9, rngs=nnx.Rngs(0))

    @nnx.jit
    def forward(layer, x):
        return layer(x)

    y = forward(layer, x)            # training: uses mean(x, 0), updates running_mean
    layer.eval()                     # or: eval_layer = nnx.view(layer, use_running_average=True)
    y_eval = forward(layer, x)       # evaluation: uses running_mean, state unchanged
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx


class RunningCenter(nnx.Module):
    """``(x - center) * scale`` where ``center`` is the batch mean (training) or its EMA (evaluation)."""

    def __init__(self, features: int, momentum: float = 0.9, *, rngs: nnx.Rngs):
        del rngs  # no random initialisation needed; kept for the usual NNX constructor signature
        self.features = features
        self.momentum = momentum
        self.scale = nnx.Param(jnp.ones((features,), jnp.float32))
        self.running_mean = nnx.BatchStat(jnp.zeros((features,), jnp.float32))
        self.use_running_average = False

    def __call__(self, x: jax.Array, *, use_running_average: bool | None = None) -> jax.Array:
        """Center and scale ``x`` of shape ``(batch, features)``.

        ``use_running_average`` overrides the attribute of the same name for this call only.
        """
        if use_running_average is None:
            use_running_average = self.use_running_average

        if use_running_average:
            center = self.running_mean[...]  # evaluation: state unchanged
        else:
            center = jnp.mean(x, axis=0)
            # The statistic is not trained: stop the gradient through the stored value.
            batch_mean = jax.lax.stop_gradient(center)
            self.running_mean[...] = (
                self.momentum * self.running_mean[...] + (1.0 - self.momentum) * batch_mean
            ).astype(self.running_mean[...].dtype)
        return (x - center) * self.scale[...]
