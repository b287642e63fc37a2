"""Flax NNX port of the PyTorch transformer feed-forward block, and its state-dict loader.

PyTorch:

    fc1 = nn.Linear(d_model, d_ff); act = nn.GELU(); fc2 = nn.Linear(d_ff, d_model)
    forward(x) = fc2(act(fc1(x)))

Two differences from the library defaults matter for getting the same numbers:

* `torch.nn.GELU()` is the exact GELU, x * Phi(x) (approximate='none'). `jax.nn.gelu` / `nnx.gelu`
  default to approximate=True (the tanh formula), which is off by up to ~5e-4 per call and the error
  compounds through the layers. Here: `jax.nn.gelu(h, approximate=False)`.
* `torch.nn.Linear.weight` is (out_features, in_features) and computes x @ W.T + b; `nnx.Linear.kernel`
  is (in_features, out_features) and computes x @ kernel + bias. The loader transposes.

The products use full float32 precision (`Precision.HIGHEST`): on GPU/TPU, JAX's default float32
matmul uses TF32/bf16 passes, whereas PyTorch's default float32 matmul does not (TF32 is off by
default for matmuls), which would otherwise cost ~1e-3 of agreement. On CPU it changes nothing.

The initialisers follow PyTorch too (U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias), which
only matters when the block is trained from scratch rather than loaded.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

_HIGHEST = jax.lax.Precision.HIGHEST


def _torch_bias_init(fan_in: int):
    """PyTorch's Linear bias init: U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = 1.0 / math.sqrt(fan_in)

    def init(key: jax.Array, shape, dtype=jnp.float32) -> jax.Array:
        return jax.random.uniform(key, shape, dtype, -bound, bound)

    return init


def _torch_linear(in_features: int, out_features: int, rngs: nnx.Rngs) -> nnx.Linear:
    return nnx.Linear(
        in_features,
        out_features,
        precision=_HIGHEST,
        kernel_init=nnx.initializers.variance_scaling(1 / 3, "fan_in", "uniform"),  # torch's weight init
        bias_init=_torch_bias_init(in_features),
        rngs=rngs,
    )


class FeedForward(nnx.Module):
    """fc2(GELU_exact(fc1(x))) on float32 x of shape (..., d_model)."""

    def __init__(self, d_model: int, d_ff: int, *, rngs: nnx.Rngs):
        self.d_model = d_model
        self.d_ff = d_ff
        self.fc1 = _torch_linear(d_model, d_ff, rngs)
        self.fc2 = _torch_linear(d_ff, d_model, rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        h = self.fc1(x)
        h = jax.nn.gelu(h, approximate=False)  # torch.nn.GELU() is the exact erf form
        return self.fc2(h)


def load_state_dict(model: FeedForward, state_dict: dict[str, np.ndarray]) -> FeedForward:
    """Copy a PyTorch-layout state dict of this block into `model` in place; returns `model`.

    Expects exactly the keys fc1.weight (d_ff, d_model), fc1.bias (d_ff,), fc2.weight (d_model, d_ff),
    fc2.bias (d_model,). Linear weights are transposed to NNX's (in, out) kernels. Missing or
    unexpected keys and wrong shapes raise instead of being skipped or broadcast.
    """
    targets = {  # torch key -> (NNX variable, layout change)
        "fc1.weight": (model.fc1.kernel, np.transpose),
        "fc1.bias": (model.fc1.bias, None),
        "fc2.weight": (model.fc2.kernel, np.transpose),
        "fc2.bias": (model.fc2.bias, None),
    }
    missing = sorted(set(targets) - set(state_dict))
    unexpected = sorted(set(state_dict) - set(targets))
    if missing or unexpected:
        raise KeyError(f"state dict does not fit FeedForward: missing {missing}, unexpected {unexpected}")

    converted = {}
    for key, (variable, convert) in targets.items():
        value = np.asarray(state_dict[key])
        if convert is not None:
            value = convert(value)
        if value.shape != tuple(variable.shape):
            raise ValueError(
                f"{key}: shape {np.asarray(state_dict[key]).shape} does not fit "
                f"(expected the torch layout of {tuple(variable.shape)})"
            )
        converted[key] = jnp.asarray(value, dtype=variable.dtype)

    for key, (variable, _) in targets.items():  # assign only after every check passed
        variable[...] = converted[key]  # keeps the nnx.Param wrapper; `.value` is deprecated
    return model


if __name__ == "__main__":
    # Self-check against the PyTorch formulas in float64 NumPy (no torch needed).
    d_model, d_ff = 8, 32
    rng = np.random.default_rng(0)
    sd = {
        "fc1.weight": rng.normal(size=(d_ff, d_model)) / math.sqrt(d_model),
        "fc1.bias": rng.normal(size=d_ff) * 0.1,
        "fc2.weight": rng.normal(size=(d_model, d_ff)) / math.sqrt(d_ff),
        "fc2.bias": rng.normal(size=d_model) * 0.1,
    }
    sd = {k: v.astype(np.float32) for k, v in sd.items()}
    model = load_state_dict(FeedForward(d_model, d_ff, rngs=nnx.Rngs(0)), sd)
    assert type(model.fc1.kernel) is nnx.Param and model.fc1.kernel.shape == (d_model, d_ff)

    erf = np.vectorize(math.erf)
    x = rng.normal(size=(2, 5, d_model))
    h = x @ sd["fc1.weight"].T.astype(np.float64) + sd["fc1.bias"]
    h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
    ref = h @ sd["fc2.weight"].T.astype(np.float64) + sd["fc2.bias"]

    got = nnx.jit(lambda m, v: m(v))(model, jnp.asarray(x, jnp.float32))
    err = float(np.abs(np.asarray(got, np.float64) - ref).max())
    print(got.shape, got.dtype, f"max abs err vs torch formula: {err:.1e}")
    assert got.shape == (2, 5, d_model) and err < 1e-5
