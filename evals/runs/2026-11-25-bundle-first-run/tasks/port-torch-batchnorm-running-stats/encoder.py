"""Flax NNX port of the PyTorch encoder block ``relu(BatchNorm1d(Linear(x)))``.

Differences between ``torch.nn.BatchNorm1d`` and ``nnx.BatchNorm`` that this port removes:

1. Momentum convention. Torch: ``running = (1 - m) * running + m * batch`` with m = 0.1.
   NNX: ``running = m * running + (1 - m) * batch`` with a default m = 0.99 (ten times slower).
   Here: ``nnx.BatchNorm(momentum=0.9)``, i.e. 1 - torch's 0.1.
2. Stored variance. Torch normalises with the biased batch variance but stores the *unbiased* one
   (x n / (n - 1)) in ``running_var``; NNX stores the biased one. Here the running variance is
   updated with the unbiased batch variance, as torch does.
3. Epsilon: 1e-5 in both (kept explicit).
4. Initialisation (for training the port from scratch): torch's Linear draws weight *and* bias from
   U(-1/sqrt(fan_in), 1/sqrt(fan_in)); nnx.Linear uses lecun_normal and zero bias. Here:
   ``variance_scaling(1/3, "fan_in", "uniform")`` for the kernel and the same uniform for the bias.
   BatchNorm starts as in torch: scale 1, bias 0, mean 0, var 1.

Training mode computes the batch statistics with the centred (two-pass) variance, as torch does, and
writes the running statistics into ``bn.mean`` / ``bn.var`` (nnx.BatchStat) in place. Eval mode
calls ``bn`` with its running statistics: ``(x - mean) / sqrt(var + eps) * scale + bias``.

Weights from torch: ``fc.kernel = weight.T``, ``fc.bias = bias``, ``bn.scale = bn.weight``,
``bn.bias = bn.bias``, ``bn.mean = running_mean``, ``bn.var = running_var`` (``num_batches_tracked`` is
only used by torch when momentum=None, so it has no counterpart).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from flax import nnx

TORCH_MOMENTUM = 0.1  # torch.nn.BatchNorm1d default
TORCH_EPS = 1e-5  # torch.nn.BatchNorm1d default


class EncoderBlock(nnx.Module):
    """relu(bn(fc(x))) with torch.nn.BatchNorm1d's training and evaluation behaviour."""

    def __init__(self, n_input: int, n_hidden: int, *, rngs: nnx.Rngs):
        bound = 1.0 / math.sqrt(n_input)

        def torch_bias_init(key, shape, dtype=jnp.float32):
            return jax.random.uniform(key, shape, dtype, -bound, bound)

        self.fc = nnx.Linear(
            n_input,
            n_hidden,
            kernel_init=nnx.initializers.variance_scaling(1 / 3, "fan_in", "uniform"),  # torch's U(-b, b)
            bias_init=torch_bias_init,
            rngs=rngs,
        )
        self.bn = nnx.BatchNorm(
            n_hidden,
            momentum=1.0 - TORCH_MOMENTUM,  # NNX convention: weight of the OLD running value
            epsilon=TORCH_EPS,
            rngs=rngs,
        )

    def _batchnorm_train(self, h: jax.Array) -> jax.Array:
        """torch.nn.BatchNorm1d.forward in training mode, on h of shape (batch, features)."""
        bn = self.bn
        n = h.shape[0]
        if n < 2:
            # torch: "Expected more than 1 value per channel when training"
            raise ValueError(f"BatchNorm in training mode needs more than 1 example per batch, got {n}")
        h32 = h.astype(jnp.float32)
        mean = jnp.mean(h32, axis=0)
        var = jnp.mean(jnp.square(h32 - mean), axis=0)  # biased, centred: used to normalise

        y = (h32 - mean) * jax.lax.rsqrt(var + bn.epsilon)
        y = y * bn.scale[...] + bn.bias[...]

        # Running statistics, torch's rule: (1 - 0.1) * old + 0.1 * batch, UNBIASED variance stored.
        m = bn.momentum
        batch_mean = jax.lax.stop_gradient(mean)
        unbiased_var = jax.lax.stop_gradient(var) * (n / (n - 1))
        bn.mean[...] = m * bn.mean[...] + (1.0 - m) * batch_mean
        bn.var[...] = m * bn.var[...] + (1.0 - m) * unbiased_var
        return y.astype(h.dtype)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.fc(x)
        if self.bn.use_running_average:  # model.eval() / nnx.view(..., use_running_average=True)
            h = self.bn(h)  # (h - running_mean) / sqrt(running_var + eps) * scale + bias
        else:  # model.train() (the initial mode)
            h = self._batchnorm_train(h)
        return jax.nn.relu(h)


if __name__ == "__main__":
    import numpy as np

    rng = np.random.default_rng(0)
    n_input, n_hidden, batch = 6, 5, 8
    W = rng.normal(size=(n_hidden, n_input)) / np.sqrt(n_input)  # torch layout (out, in)
    b = rng.normal(size=n_hidden) * 0.1
    gamma, beta = 1 + 0.1 * rng.normal(size=n_hidden), 0.1 * rng.normal(size=n_hidden)

    model = EncoderBlock(n_input, n_hidden, rngs=nnx.Rngs(0))
    model.fc.kernel[...] = jnp.asarray(W.T, jnp.float32)
    model.fc.bias[...] = jnp.asarray(b, jnp.float32)
    model.bn.scale[...] = jnp.asarray(gamma, jnp.float32)
    model.bn.bias[...] = jnp.asarray(beta, jnp.float32)

    # Reference: torch.nn.BatchNorm1d's documented formulas in float64 NumPy.
    rm, rv = np.zeros(n_hidden), np.ones(n_hidden)

    @nnx.jit
    def forward(m, x):
        return m(x)

    for step in range(3):
        x = rng.normal(loc=1.0, scale=2.0, size=(batch, n_input))
        h = x @ W.T + b
        mu, var = h.mean(0), h.var(0)
        ref = np.maximum((h - mu) / np.sqrt(var + 1e-5) * gamma + beta, 0)
        rm = 0.9 * rm + 0.1 * mu
        rv = 0.9 * rv + 0.1 * var * batch / (batch - 1)
        out = forward(model, jnp.asarray(x, jnp.float32))
        assert np.max(np.abs(np.asarray(out) - ref)) < 1e-5
    assert np.max(np.abs(np.asarray(model.bn.mean[...]) - rm)) < 1e-5
    assert np.max(np.abs(np.asarray(model.bn.var[...]) - rv)) < 1e-4

    model.eval()
    x = rng.normal(size=(batch, n_input))
    h = x @ W.T + b
    ref = np.maximum((h - rm) / np.sqrt(rv + 1e-5) * gamma + beta, 0)
    mean_before = np.asarray(model.bn.mean[...])
    assert np.max(np.abs(np.asarray(forward(model, jnp.asarray(x, jnp.float32))) - ref)) < 1e-5
    assert np.array_equal(np.asarray(model.bn.mean[...]), mean_before)  # eval leaves statistics alone
    model.train()
    print("train and eval match torch.nn.BatchNorm1d")
