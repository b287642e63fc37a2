"""Flax NNX port of the PyTorch transformer feed-forward block, plus a state-dict loader.

PyTorch:

    class FeedForward(nn.Module):
        def __init__(self, d_model, d_ff):
            self.fc1 = nn.Linear(d_model, d_ff)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(d_ff, d_model)
        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

Two differences that raise no error but change the numbers:

1. GELU. `torch.nn.GELU()` is the exact form, 0.5 * x * (1 + erf(x / sqrt(2)))
   (approximate='none'). `jax.nn.gelu` / `nnx.gelu` default to approximate=True (the tanh formula),
   which differs by up to ~5e-4 per activation and compounds over layers. We call
   `jax.nn.gelu(h, approximate=False)`.
2. Linear weight layout. torch stores `weight` as (out, in) and computes x @ W.T + b; `nnx.Linear`
   stores `kernel` as (in, out) and computes x @ kernel + bias. The loader transposes. (With
   d_ff == d_model the untransposed weight would fit the shape and silently compute the wrong thing,
   so the loader checks shapes against the torch layout explicitly.)

Initialisation (only relevant if you train from scratch, not when loading weights) follows PyTorch's
U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weights and biases instead of NNX's lecun_normal / zeros.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


def _torch_linear(in_features: int, out_features: int, rngs: nnx.Rngs) -> nnx.Linear:
    """nnx.Linear initialised like torch.nn.Linear: weight and bias ~ U(-1/sqrt(in), 1/sqrt(in))."""
    bound = 1.0 / math.sqrt(in_features)

    def bias_init(key, shape, dtype=jnp.float32):
        return jax.random.uniform(key, shape, dtype, -bound, bound)

    return nnx.Linear(
        in_features,
        out_features,
        kernel_init=nnx.initializers.variance_scaling(1 / 3, "fan_in", "uniform"),
        bias_init=bias_init,
        rngs=rngs,
    )


class FeedForward(nnx.Module):
    """fc1 -> exact GELU -> fc2, equal to the PyTorch block for the same weights."""

    def __init__(self, d_model: int, d_ff: int, *, rngs: nnx.Rngs):
        self.d_model = d_model
        self.d_ff = d_ff
        self.fc1 = _torch_linear(d_model, d_ff, rngs)
        self.fc2 = _torch_linear(d_ff, d_model, rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.fc1(x)
        h = jax.nn.gelu(h, approximate=False)  # torch.nn.GELU() is the exact erf form
        return self.fc2(h)


def load_state_dict(model: FeedForward, state_dict: Mapping[str, np.ndarray]) -> FeedForward:
    """Copy a PyTorch FeedForward state dict (NumPy arrays) into `model` in place; returns `model`.

    Expects exactly the keys fc1.weight (d_ff, d_model), fc1.bias (d_ff,), fc2.weight (d_model, d_ff),
    fc2.bias (d_model,). Linear weights are transposed (out, in) -> (in, out). Raises KeyError /
    ValueError (naming the keys) on missing, unexpected or misshapen entries instead of guessing.
    """
    d_model, d_ff = model.d_model, model.d_ff
    # torch key -> (nnx Variable, expected torch shape, layout change)
    targets = {
        "fc1.weight": (model.fc1.kernel, (d_ff, d_model), True),
        "fc1.bias": (model.fc1.bias, (d_ff,), False),
        "fc2.weight": (model.fc2.kernel, (d_model, d_ff), True),
        "fc2.bias": (model.fc2.bias, (d_model,), False),
    }
    missing = sorted(set(targets) - set(state_dict))
    unexpected = sorted(set(state_dict) - set(targets))
    if missing or unexpected:
        raise KeyError(f"state dict does not fit FeedForward: missing {missing}, unexpected {unexpected}")

    converted = {}
    for key, (variable, torch_shape, transpose) in targets.items():
        value = np.asarray(state_dict[key])
        if value.shape != torch_shape:
            raise ValueError(f"{key}: shape {value.shape}, expected torch layout {torch_shape}")
        if transpose:
            value = value.T  # torch (out, in) -> nnx kernel (in, out)
        if value.shape != variable.shape:  # cannot happen if the model was built with these sizes
            raise ValueError(f"{key}: converted shape {value.shape} != model's {variable.shape}")
        converted[key] = value

    # All checks passed: write (keeps the nnx.Param wrappers, so the model stays trainable).
    for key, (variable, _, _) in targets.items():
        variable[...] = jnp.asarray(converted[key], dtype=variable.dtype)
    return model


if __name__ == "__main__":
    # Check against the PyTorch formulas in float64 NumPy (torch itself is not needed).
    rng = np.random.default_rng(0)
    d_model, d_ff = 16, 64
    sd = {
        "fc1.weight": (rng.normal(size=(d_ff, d_model)) / math.sqrt(d_model)).astype(np.float32),
        "fc1.bias": (0.1 * rng.normal(size=d_ff)).astype(np.float32),
        "fc2.weight": (rng.normal(size=(d_model, d_ff)) / math.sqrt(d_ff)).astype(np.float32),
        "fc2.bias": (0.1 * rng.normal(size=d_model)).astype(np.float32),
    }
    x = rng.normal(size=(4, 7, d_model)).astype(np.float32)

    erf = np.vectorize(math.erf)
    p = {k: v.astype(np.float64) for k, v in sd.items()}
    h = x.astype(np.float64) @ p["fc1.weight"].T + p["fc1.bias"]
    h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
    ref = h @ p["fc2.weight"].T + p["fc2.bias"]

    model = load_state_dict(FeedForward(d_model, d_ff, rngs=nnx.Rngs(0)), sd)
    assert isinstance(model.fc1.kernel, nnx.Param)
    out = np.asarray(nnx.jit(lambda m, x: m(x))(model, jnp.asarray(x)))
    err = np.abs(out - ref).max()
    print(out.shape, out.dtype, f"max abs err vs torch formula: {err:.2e}")
    assert out.shape == x.shape and err < 1e-5
