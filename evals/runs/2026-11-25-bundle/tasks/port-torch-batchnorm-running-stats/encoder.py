"""PyTorch EncoderBlock (Linear -> BatchNorm1d -> ReLU) ported to Flax NNX.

Defaults that differ between torch.nn.BatchNorm1d and nnx.BatchNorm, and what this port does:

- Momentum has opposite meanings. torch: running = (1 - 0.1) * running + 0.1 * batch.
  nnx: running = momentum * running + (1 - momentum) * batch, default momentum=0.99 (ten times
  slower). Here momentum=0.9, which is torch's 0.1.
- Running variance: torch normalises with the biased batch variance but stores the UNBIASED one
  (times n / (n - 1)) in running_var; nnx.BatchNorm stores the biased one. In training mode this
  block overwrites `bn.var` with the torch update after the layer has run.
- Epsilon agrees (1e-5). The batch variance is computed two-pass (`use_fast_variance=False`),
  mean((x - mean)^2) like torch, rather than E[x^2] - E[x]^2.
- nn.Linear stores weight as (out, in); `fc.kernel` is its transpose, (in, out). Its initialisation is
  matched too: torch draws weight and bias from U(-1/sqrt(n_input), 1/sqrt(n_input)).

Modes: after model.train() (the initial mode) the block normalises with batch statistics and updates
bn.mean / bn.var in place, as torch's training mode does; after model.eval() it normalises with the
running statistics and updates nothing. Under a transformation use nnx.jit / nnx.value_and_grad (or
split/merge) so that the statistic updates are kept.

Loading trained torch weights (state dict of NumPy arrays `sd`):
    block.fc.kernel[...] = sd["fc.weight"].T;  block.fc.bias[...] = sd["fc.bias"]
    block.bn.scale[...] = sd["bn.weight"];     block.bn.bias[...] = sd["bn.bias"]
    block.bn.mean[...] = sd["bn.running_mean"]; block.bn.var[...] = sd["bn.running_var"]
"""

import math

import jax
import jax.numpy as jnp
from flax import nnx

TORCH_BN_MOMENTUM = 0.1  # torch convention
TORCH_BN_EPS = 1e-5


def _torch_linear_bias_init(fan_in: int):
    """torch.nn.Linear's bias init: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0

    def init(key, shape, dtype=jnp.float32):
        return jax.random.uniform(key, shape, dtype, minval=-bound, maxval=bound)

    return init


class EncoderBlock(nnx.Module):
    """relu(BatchNorm1d(Linear(x))) with PyTorch's training and eval semantics."""

    def __init__(self, n_input: int, n_hidden: int, *, rngs: nnx.Rngs):
        self.fc = nnx.Linear(
            n_input,
            n_hidden,
            # torch kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
            kernel_init=nnx.initializers.variance_scaling(1.0 / 3.0, "fan_in", "uniform"),
            bias_init=_torch_linear_bias_init(n_input),
            rngs=rngs,
        )
        self.bn = nnx.BatchNorm(
            n_hidden,
            momentum=1.0 - TORCH_BN_MOMENTUM,  # nnx keeps `momentum` of the old value: 0.9
            epsilon=TORCH_BN_EPS,
            use_fast_variance=False,  # two-pass variance, as torch
            rngs=rngs,
        )

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.fc(x)
        if self.bn.use_running_average:  # eval mode: running statistics, no update
            return nnx.relu(self.bn(h))

        # Training mode: nnx.BatchNorm normalises with the biased batch variance and updates
        # bn.mean exactly as torch does; only the stored variance must become the unbiased one.
        n = h.shape[0]
        if n < 2:
            raise ValueError("Expected more than 1 value per channel when training (as torch BatchNorm1d)")
        old_var = self.bn.var[...]
        y = self.bn(h)
        batch_var = jax.lax.stop_gradient(jnp.var(h, axis=0))  # biased (ddof=0)
        unbiased = batch_var * (n / (n - 1))
        m = self.bn.momentum
        self.bn.var[...] = m * old_var + (1.0 - m) * unbiased
        return nnx.relu(y)


if __name__ == "__main__":
    import numpy as np

    rngs = nnx.Rngs(0)
    block = EncoderBlock(6, 4, rngs=rngs)
    x = jax.random.normal(jax.random.key(1), (16, 6)) * 3.0 + 1.0

    # Reference: torch BatchNorm1d training step written out in NumPy (float64).
    h = np.asarray(x, np.float64) @ np.asarray(block.fc.kernel[...], np.float64) + np.asarray(block.fc.bias[...])
    mean, var = h.mean(0), h.var(0)
    y_ref = np.maximum((h - mean) / np.sqrt(var + 1e-5), 0.0)
    mean_ref = 0.9 * 0.0 + 0.1 * mean
    var_ref = 0.9 * 1.0 + 0.1 * var * 16 / 15

    block.train()
    y = block(x)
    print("train y", float(np.max(np.abs(np.asarray(y) - y_ref))))
    print("running mean", float(np.max(np.abs(np.asarray(block.bn.mean[...]) - mean_ref))))
    print("running var", float(np.max(np.abs(np.asarray(block.bn.var[...]) - var_ref))))

    block.eval()
    y_eval = block(x)
    y_eval_ref = np.maximum((h - mean_ref) / np.sqrt(var_ref + 1e-5), 0.0)
    print("eval y", float(np.max(np.abs(np.asarray(y_eval) - y_eval_ref))))
