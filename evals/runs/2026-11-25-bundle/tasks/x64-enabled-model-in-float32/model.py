"""MLP forward pass that computes in float32 even when jax_enable_x64 is on.

`jax_enable_x64` does not convert anything by itself; it only stops JAX from truncating 64-bit
values. With it on, NumPy float64 weights and inputs stay float64 when they enter JAX, and every
operation on them (both matmuls, tanh, the bias adds) runs in float64: about half the throughput on
CPU and much worse on most GPUs/TPUs. Without x64 the same NumPy arrays were silently cast to float32,
which is why the model used to be fast.

So the model fixes its own dtype at its entry: every parameter leaf and the input are cast to
float32 before any arithmetic, and everything downstream inherits float32 (no Python float constants
that could promote it back). The solver elsewhere keeps using float64, and x64 stays enabled.

For NumPy inputs called outside jit, the cast happens on the host, so only float32 bytes are
transferred to the device. Inside a user's jax.jit the cast is the first op of the program; the
compiled dots are f32 either way (check with
`jax.jit(mlp_forward).lower(params, x).compile().as_text()`: the `dot(` results are `f32[...]`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

COMPUTE_DTYPE = jnp.float32


def _to_compute_dtype(value) -> jax.Array:
    return jnp.asarray(value, dtype=COMPUTE_DTYPE)


@jax.jit
def _mlp_float32(params: dict, x: jax.Array) -> jax.Array:
    hidden = jnp.tanh(x @ params["w1"] + params["b1"])
    return hidden @ params["w2"] + params["b2"]


def mlp_forward(params: dict, x) -> jax.Array:
    """tanh(x @ w1 + b1) @ w2 + b2, computed and returned in float32 whether or not x64 is enabled.

    params: {"w1": (d, h), "b1": (h,), "w2": (h, k), "b2": (k,)}, NumPy float64 or JAX arrays;
    x: (n, d). Returns (n, k) float32. Works eagerly and under jax.jit.
    """
    params = jax.tree.map(_to_compute_dtype, params)
    x = _to_compute_dtype(x)
    return _mlp_float32(params, x)


if __name__ == "__main__":
    import re

    import numpy as np

    rng = np.random.default_rng(0)
    params = {"w1": rng.normal(size=(8, 16)), "b1": rng.normal(size=16),
              "w2": rng.normal(size=(16, 4)), "b2": rng.normal(size=4)}  # NumPy float64
    x = rng.normal(size=(5, 8))
    ref = np.tanh(x @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]

    jax.config.update("jax_enable_x64", True)  # as in the program: on for the solver
    assert jnp.asarray(x).dtype == jnp.float64  # x64 really is on
    for fn in (mlp_forward, jax.jit(mlp_forward)):
        out = fn(params, x)
        assert out.dtype == jnp.float32 and out.shape == (5, 4)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    hlo = jax.jit(mlp_forward).lower(params, x).compile().as_text()
    dot_types = re.findall(r"= (f\d+)\[[\d,]*\]\S* dot\(", hlo)
    print("dot result types with x64 on:", dot_types)
    assert dot_types and all(t == "f32" for t in dot_types)
