"""Flax NNX port of a PyTorch transformer feed-forward block, plus a state-dict loader.

Two details decide whether the numbers match:
* torch.nn.GELU() is the exact, erf-based GELU (approximate="none"), while jax.nn.gelu / nnx.gelu
  default to the tanh approximation (approximate=True). Use jax.nn.gelu(x, approximate=False).
* torch.nn.Linear stores weight as (out_features, in_features) and computes x @ weight.T + bias;
  nnx.Linear stores kernel as (in_features, out_features) and computes x @ kernel + bias. So the
  kernel is weight.T; the bias is copied as is.
The matmuls use full float32 precision (on TPU/GPU JAX's default may use bf16/TF32 passes).
"""

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

_PRECISION = jax.lax.Precision.HIGHEST


class FeedForward(nnx.Module):
    def __init__(self, d_model: int, d_ff: int, *, rngs: nnx.Rngs):
        self.fc1 = nnx.Linear(d_model, d_ff, precision=_PRECISION, rngs=rngs)
        self.fc2 = nnx.Linear(d_ff, d_model, precision=_PRECISION, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.fc1(x)
        h = jax.nn.gelu(h, approximate=False)  # torch.nn.GELU() default: exact erf form
        return self.fc2(h)


def _copy(variable: nnx.Variable, value: np.ndarray) -> None:
    value = jnp.asarray(np.asarray(value), dtype=variable.value.dtype)
    if value.shape != variable.value.shape:
        raise ValueError(f"shape mismatch: expected {variable.value.shape}, got {value.shape}")
    variable.value = value


def load_state_dict(model: FeedForward, state_dict: dict[str, np.ndarray]) -> FeedForward:
    """Copy PyTorch weights (as NumPy arrays) into `model` in place and return it."""
    for name in ("fc1", "fc2"):
        layer = getattr(model, name)
        _copy(layer.kernel, np.asarray(state_dict[f"{name}.weight"]).T)  # (out, in) -> (in, out)
        _copy(layer.bias, state_dict[f"{name}.bias"])
    return model


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    d_model, d_ff = 8, 32
    sd = {
        "fc1.weight": rng.normal(size=(d_ff, d_model)).astype(np.float32),
        "fc1.bias": rng.normal(size=(d_ff,)).astype(np.float32),
        "fc2.weight": rng.normal(size=(d_model, d_ff)).astype(np.float32),
        "fc2.bias": rng.normal(size=(d_model,)).astype(np.float32),
    }
    model = load_state_dict(FeedForward(d_model, d_ff, rngs=nnx.Rngs(0)), sd)
    x = rng.normal(size=(2, 5, d_model)).astype(np.float32)
    h = x @ sd["fc1.weight"].T + sd["fc1.bias"]
    from math import erf, sqrt

    h = h * 0.5 * (1 + np.vectorize(erf)(h / sqrt(2)))
    ref = h @ sd["fc2.weight"].T + sd["fc2.bias"]
    print(np.max(np.abs(np.asarray(model(x)) - ref)))
