"""MLP forward pass that computes in float32 even when jax_enable_x64 is on.

``jax_enable_x64`` does not convert anything by itself; it changes the dtype of values whose dtype
nobody fixed. NumPy arrays are float64, so with the flag on they enter JAX as float64 and every
operation on them (the matmuls included) runs in 64 bits. The model therefore fixes its own dtype
at its entry: parameters and inputs are cast to float32 first, and everything after that is float32
whatever the flag says. The solver elsewhere keeps its float64.

Outside ``jit`` the cast of a NumPy array happens on the host, so only float32 data is copied to the
device (half the bytes). Under an outer ``jax.jit`` the cast is a convert op at the top of the
program, and the dots and tanh still run in f32. For the cheapest path, store the weights as float32
once (``to_float32(params)``) instead of re-casting float64 NumPy weights on every call.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def to_float32(tree):
    """Cast every leaf of a pytree (NumPy or JAX arrays) to a float32 jax.Array."""
    return jax.tree.map(lambda leaf: jnp.asarray(leaf, dtype=jnp.float32), tree)


@jax.jit
def _forward_f32(params: dict, x: jax.Array) -> jax.Array:
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def mlp_forward(params: dict, x) -> jax.Array:
    """tanh(x @ w1 + b1) @ w2 + b2, computed in float32; returns float32 of shape (n, k)."""
    return _forward_f32(to_float32(params), jnp.asarray(x, dtype=jnp.float32))


if __name__ == "__main__":
    import re

    import numpy as np

    jax.config.update("jax_enable_x64", True)  # as in the user's program

    rng = np.random.default_rng(0)
    d, h, k, n = 8, 32, 4, 16
    params = {"w1": rng.normal(size=(d, h)) / np.sqrt(d), "b1": rng.normal(size=h),
              "w2": rng.normal(size=(h, k)) / np.sqrt(h), "b2": rng.normal(size=k)}  # NumPy float64
    x = rng.normal(size=(n, d))

    ref = np.tanh(x @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]  # float64 reference

    def dot_types(fn) -> list[str]:
        hlo = jax.jit(fn).lower(params, x).compile().as_text()
        return re.findall(r"= (f\d+)\[[\d,]*\]\S* dot\(", hlo)

    def naive(p, x):  # the model without the cast: float64 under x64
        return jnp.tanh(x @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]

    print("dot result types, naive:", dot_types(naive), "| mlp_forward:", dot_types(mlp_forward))
    assert set(dot_types(naive)) == {"f64"} and dot_types(mlp_forward) == ["f32", "f32"]

    eager = mlp_forward(params, x)
    jitted = jax.jit(mlp_forward)(params, x)
    jax_params = jax.device_put(params)  # JAX float64 arrays work too
    from_jax = mlp_forward(jax_params, jax.device_put(x))
    for out in (eager, jitted, from_jax):
        assert out.dtype == jnp.float32 and out.shape == (n, k)
        assert np.max(np.abs(np.asarray(out, np.float64) - ref)) < 1e-5
    print("float32 output, max |diff| to the float64 reference:",
          f"{np.max(np.abs(np.asarray(eager, np.float64) - ref)):.1e}")
    assert jnp.ones(2).dtype == jnp.float64  # x64 itself stays on for the solver
