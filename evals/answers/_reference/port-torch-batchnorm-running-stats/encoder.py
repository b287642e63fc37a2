"""nn.Linear -> nn.BatchNorm1d -> relu in Flax NNX, with PyTorch's running statistics.

torch's momentum=0.1 weights the *new* batch; nnx.BatchNorm's momentum weights the *old* average, so
torch 0.1 is nnx 0.9. torch also stores the unbiased batch variance in running_var while it
normalises with the biased one; nnx.BatchNorm stores the biased one, so the training call replaces the
stored variance with torch's update.
"""

import jax
import jax.numpy as jnp
from flax import nnx

TORCH_MOMENTUM = 0.1


class EncoderBlock(nnx.Module):
    def __init__(self, n_input: int, n_hidden: int, *, rngs: nnx.Rngs):
        self.fc = nnx.Linear(n_input, n_hidden, rngs=rngs)
        self.bn = nnx.BatchNorm(n_hidden, momentum=1.0 - TORCH_MOMENTUM, epsilon=1e-5, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.fc(x)
        if self.bn.use_running_average:
            return nnx.relu(self.bn(h))
        old_var = self.bn.var[...]
        y = self.bn(h)  # normalises with the biased batch variance, updates the mean as torch does
        n = h.shape[0]
        unbiased = jnp.var(h, axis=0) * n / (n - 1)
        self.bn.var[...] = self.bn.momentum * old_var + (1.0 - self.bn.momentum) * unbiased
        return nnx.relu(y)
