"""PyTorch's Linear -> GELU -> Linear in Flax NNX: torch.nn.GELU() is the exact GELU, approximate=False."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


class FeedForward(nnx.Module):
    def __init__(self, d_model: int, d_ff: int, *, rngs: nnx.Rngs):
        self.fc1 = nnx.Linear(d_model, d_ff, rngs=rngs)
        self.fc2 = nnx.Linear(d_ff, d_model, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.fc2(jax.nn.gelu(self.fc1(x), approximate=False))  # torch.nn.GELU() is exact


def load_state_dict(model: FeedForward, state_dict: dict[str, np.ndarray]) -> FeedForward:
    """torch Linear weights are (out, in); nnx.Linear kernels are (in, out)."""
    for name in ("fc1", "fc2"):
        layer = getattr(model, name)
        kernel = np.asarray(state_dict[f"{name}.weight"]).T
        bias = np.asarray(state_dict[f"{name}.bias"])
        if kernel.shape != layer.kernel.shape or bias.shape != layer.bias.shape:
            raise ValueError(f"{name}: shapes {kernel.shape}, {bias.shape} do not fit the model")
        layer.kernel[...] = jnp.asarray(kernel, jnp.float32)
        layer.bias[...] = jnp.asarray(bias, jnp.float32)
    return model
