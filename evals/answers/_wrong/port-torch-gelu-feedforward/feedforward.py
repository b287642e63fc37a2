"""The natural port: nnx.gelu with its default, which is the tanh approximation, not torch's exact GELU."""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


class FeedForward(nnx.Module):
    def __init__(self, d_model: int, d_ff: int, *, rngs: nnx.Rngs):
        self.fc1 = nnx.Linear(d_model, d_ff, rngs=rngs)
        self.fc2 = nnx.Linear(d_ff, d_model, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.fc2(nnx.gelu(self.fc1(x)))


def load_state_dict(model: FeedForward, state_dict: dict[str, np.ndarray]) -> FeedForward:
    for name in ("fc1", "fc2"):
        layer = getattr(model, name)
        layer.kernel[...] = jnp.asarray(np.asarray(state_dict[f"{name}.weight"]).T, jnp.float32)
        layer.bias[...] = jnp.asarray(state_dict[f"{name}.bias"], jnp.float32)
    return model
