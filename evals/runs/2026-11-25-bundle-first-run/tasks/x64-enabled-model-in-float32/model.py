"""The MLP forward pass, in float32 whatever jax_enable_x64 says.

jax_enable_x64 does not convert anything by itself: it changes the dtype of values whose dtype nobody
fixed. With it on, NumPy float64 weights and inputs stay float64 when they enter JAX, and every matmul
and tanh of the network runs in 64 bits (about twice as slow on CPU, far worse on GPUs/TPUs with little
or no float64 throughput). With it off they would have been converted to float32 silently.

So the model fixes its own dtype at its entry: parameters and input are cast to float32 before any
arithmetic, and everything after that is float32 (Python scalars are weakly typed and never widen an
array). The solver elsewhere keeps float64, since the global flag stays on.

Cast once, at load time, if you can: `params = to_float32(params)` keeps float32 copies of the weights,
so each call does not transfer and convert float64 weights again (mlp_forward still accepts either).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def to_float32(tree):
    """Every leaf of a pytree (NumPy or JAX arrays) as a float32 JAX array."""
    return jax.tree.map(lambda leaf: jnp.asarray(leaf, dtype=jnp.float32), tree)


def mlp_forward(params: dict, x) -> jax.Array:
    """tanh(x @ w1 + b1) @ w2 + b2 computed in float32; returns float32 (n, k).

    params {"w1": (d, h), "b1": (h,), "w2": (h, k), "b2": (k,)} as NumPy float64 or JAX arrays;
    x (n, d), NumPy float64. Works eagerly and under jax.jit, with or without x64.
    """
    p = to_float32(params)
    x = jnp.asarray(x, dtype=jnp.float32)
    hidden = jnp.tanh(x @ p["w1"] + p["b1"])
    return hidden @ p["w2"] + p["b2"]


if __name__ == "__main__":
    import re

    import numpy as np

    jax.config.update("jax_enable_x64", True)  # as in the program
    rng = np.random.default_rng(0)
    params = {"w1": rng.normal(size=(8, 16)), "b1": rng.normal(size=16),
              "w2": rng.normal(size=(16, 4)), "b2": rng.normal(size=4)}  # NumPy float64
    x = rng.normal(size=(5, 8))

    out = mlp_forward(params, x)
    out_jit = jax.jit(mlp_forward)(params, x)
    assert out.dtype == out_jit.dtype == jnp.float32 and out.shape == (5, 4)
    hlo = jax.jit(mlp_forward).lower(params, x).compile().as_text()
    dots = re.findall(r"= (f\d+)\[[\d,]*\]\S* dot\(", hlo)
    assert dots and all(t == "f32" for t in dots), dots  # the matmuls run in float32
    ref = np.tanh(x @ params["w1"] + params["b1"]) @ params["w2"] + params["b2"]
    np.testing.assert_allclose(out_jit, ref, rtol=1e-4, atol=1e-4)
    assert jnp.asarray(np.ones(2)).dtype == jnp.float64  # x64 is still on for the solver
    print("dot dtypes:", dots, "output:", out_jit.dtype)
