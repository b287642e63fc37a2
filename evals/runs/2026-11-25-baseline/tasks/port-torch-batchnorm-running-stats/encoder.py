"""Flax NNX port of a PyTorch `Linear -> BatchNorm1d -> ReLU` encoder block.

Where nnx.BatchNorm differs from torch.nn.BatchNorm1d
-----------------------------------------------------
1. Momentum convention. torch: running = (1 - 0.1) * running + 0.1 * batch (momentum=0.1).
   Flax: running = momentum * running + (1 - momentum) * batch, default momentum=0.99.
   torch's default therefore corresponds to Flax momentum=0.9.
2. Running variance. In training mode torch normalises with the *biased* batch variance but
   accumulates the *unbiased* one (times n / (n - 1)) into running_var. nnx.BatchNorm accumulates
   the biased variance, so its running_var drifts away from torch's (noticeably for small batches).
3. epsilon is 1e-5 in both.

In training mode the block therefore computes the batch statistics itself, normalises with the
biased variance and updates `bn.mean` / `bn.var` with torch's rule; in eval mode it calls `bn`,
which uses the running statistics exactly like torch's eval mode. The parameters and statistics live
in `bn.scale`, `bn.bias`, `bn.mean`, `bn.var` (torch's weight, bias, running_mean, running_var).
"""

import jax
import jax.numpy as jnp
from flax import nnx

TORCH_BN_MOMENTUM = 0.1
TORCH_BN_EPS = 1e-5


def _torch_linear_init(fan_in: int):
    """U(-1/sqrt(fan_in), 1/sqrt(fan_in)), torch.nn.Linear's default for weight and bias."""
    bound = 1.0 / fan_in**0.5

    def init(key, shape, dtype=jnp.float32):
        return jax.random.uniform(key, shape, dtype, -bound, bound)

    return init


class EncoderBlock(nnx.Module):
    def __init__(self, n_input: int, n_hidden: int, *, rngs: nnx.Rngs):
        self.fc = nnx.Linear(
            n_input,
            n_hidden,
            kernel_init=_torch_linear_init(n_input),
            bias_init=_torch_linear_init(n_input),
            precision=jax.lax.Precision.HIGHEST,  # full float32 matmuls, as torch does by default
            rngs=rngs,
        )
        self.bn = nnx.BatchNorm(
            n_hidden,
            momentum=1.0 - TORCH_BN_MOMENTUM,  # Flax convention: weight of the old running value
            epsilon=TORCH_BN_EPS,
            rngs=rngs,
        )

    def _batch_norm_train(self, h: jax.Array) -> jax.Array:
        bn = self.bn
        n = h.shape[0]
        if n < 2:
            raise ValueError(
                "Expected more than 1 value per channel when training (torch raises the same)"
            )
        mean = jnp.mean(h, axis=0)
        var = jnp.mean(jnp.square(h - mean), axis=0)  # biased: used to normalise
        y = (h - mean) / jnp.sqrt(var + bn.epsilon) * bn.scale.value + bn.bias.value

        unbiased_var = var * (n / (n - 1))  # what torch accumulates
        m = bn.momentum
        bn.mean.value = m * bn.mean.value + (1.0 - m) * mean
        bn.var.value = m * bn.var.value + (1.0 - m) * unbiased_var
        return y

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.fc(x)
        if self.bn.use_running_average:  # model.eval()
            h = self.bn(h)
        else:  # model.train() (also torch's default mode, before train()/eval() is called)
            h = self._batch_norm_train(h)
        return jax.nn.relu(h)


if __name__ == "__main__":
    model = EncoderBlock(6, 4, rngs=nnx.Rngs(0))
    x = jax.random.normal(jax.random.key(1), (5, 6))
    model.train()
    y_train = model(x)
    print(y_train.shape, model.bn.mean.value, model.bn.var.value)
    model.eval()
    print(model(x).shape)
