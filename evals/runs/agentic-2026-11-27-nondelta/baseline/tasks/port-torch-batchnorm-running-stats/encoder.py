"""Flax NNX port of the PyTorch encoder block ``relu(BatchNorm1d(Linear(x)))``.

Differences between ``torch.nn.BatchNorm1d`` and a default ``nnx.BatchNorm``
that this port takes care of:

* Momentum convention.  Torch: ``running = (1 - 0.1) * running + 0.1 * batch``
  (``momentum=0.1``).  Flax: ``running = momentum * running + (1 - momentum)
  * batch`` with default ``momentum=0.99``.  Torch's behaviour is Flax's
  ``momentum=0.9``.
* Running variance.  In training mode torch normalises with the *biased*
  batch variance but accumulates the *unbiased* one (``* n / (n - 1)``) into
  ``running_var``; Flax accumulates the biased one.  The training-mode
  forward below therefore computes the statistics itself (two-pass, like
  torch, rather than Flax's fast ``E[x^2] - E[x]^2``) and updates ``bn.mean`` /
  ``bn.var`` the torch way.
* ``eps = 1e-5`` in both.  ``scale``/``bias`` start at 1/0, ``mean``/``var``
  at 0/1, as torch's ``weight``/``bias``/``running_mean``/``running_var``.
* Initialisation of ``nn.Linear``: torch draws weight and bias from
  ``U(-1/sqrt(n_input), 1/sqrt(n_input))``; Flax's defaults are lecun-normal
  and zeros.  The same torch distributions are used here (a fresh model then
  starts like a fresh torch model; for exact comparisons copy the torch
  weights: ``fc.kernel = weight.T``, ``fc.bias = bias``, ``bn.scale = weight``,
  ``bn.bias = bias``, ``bn.mean = running_mean``, ``bn.var = running_var``).

Mode switching is the usual NNX one: ``model.train()`` sets
``bn.use_running_average = False`` (batch statistics, running stats
updated), ``model.eval()`` sets it to ``True`` (running statistics, nothing
updated), like ``module.train()`` / ``module.eval()`` in torch.  Under
``nnx.jit`` the running-stat updates are propagated to the model as usual.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from flax import nnx

TORCH_BN_MOMENTUM = 0.1  # torch's default
TORCH_BN_EPS = 1e-5


def _torch_linear_bias_init(fan_in: int):
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0

    def init(key, shape, dtype=jnp.float32):
        return jax.random.uniform(key, shape, dtype, -bound, bound)

    return init


class EncoderBlock(nnx.Module):
    def __init__(self, n_input: int, n_hidden: int, *, rngs: nnx.Rngs):
        self.fc = nnx.Linear(
            n_input,
            n_hidden,
            # torch: kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
            kernel_init=nnx.initializers.variance_scaling(1.0 / 3.0, "fan_in", "uniform"),
            bias_init=_torch_linear_bias_init(n_input),
            rngs=rngs,
        )
        self.bn = nnx.BatchNorm(
            n_hidden,
            momentum=1.0 - TORCH_BN_MOMENTUM,  # Flax convention for torch's 0.1
            epsilon=TORCH_BN_EPS,
            use_fast_variance=False,
            rngs=rngs,
        )

    def _batch_norm(self, h: jax.Array) -> jax.Array:
        bn = self.bn
        if bn.use_running_average:
            # eval mode: normalise with the running statistics, update nothing.
            mean, var = bn.mean[...], bn.var[...]
        else:
            # training mode: normalise with the biased batch statistics and
            # accumulate the unbiased variance, exactly like torch.
            n = h.shape[0]
            if n < 2:
                raise ValueError(
                    "Expected more than 1 value per channel when training "
                    f"(got input of shape {h.shape}), as torch.nn.BatchNorm1d"
                )
            mean = jnp.mean(h, axis=0)
            var = jnp.mean(jnp.square(h - mean), axis=0)  # biased
            unbiased_var = var * (n / (n - 1))
            m = bn.momentum  # = 1 - torch momentum
            bn.mean[...] = m * bn.mean[...] + (1.0 - m) * mean
            bn.var[...] = m * bn.var[...] + (1.0 - m) * unbiased_var
        y = (h - mean) * jax.lax.rsqrt(var + bn.epsilon)
        return y * bn.scale[...] + bn.bias[...]

    def __call__(self, x: jax.Array) -> jax.Array:
        return jax.nn.relu(self._batch_norm(self.fc(x)))
