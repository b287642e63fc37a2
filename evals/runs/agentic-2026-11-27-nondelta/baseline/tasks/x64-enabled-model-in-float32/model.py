"""MLP forward pass that computes in float32 even when jax_enable_x64 is on.

With x64 enabled, NumPy float64 arrays become float64 JAX arrays, and every
operation on them runs in float64.  The fix is local: cast the weights and
the input to float32 at the start of the forward pass (instead of turning x64
off globally), so the matmuls and tanh run in float32 while the solver keeps
float64.  No float64 value or Python-float constant enters the computation
after the casts, so nothing promotes back to float64.

Tip: for speed, cast the weights to float32 once (e.g. ``params =
jax.tree.map(lambda a: jnp.asarray(a, jnp.float32), params)``) and keep them
on the device, rather than passing float64 NumPy arrays on every call; the
casts below are then no-ops.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

COMPUTE_DTYPE = jnp.float32


def _f32(a) -> jax.Array:
    # Works for NumPy arrays, JAX arrays and tracers (under jax.jit).
    return jnp.asarray(a, dtype=COMPUTE_DTYPE)


def mlp_forward(params: dict, x) -> jax.Array:
    """tanh(x @ w1 + b1) @ w2 + b2, computed and returned in float32."""
    w1, b1 = _f32(params["w1"]), _f32(params["b1"])
    w2, b2 = _f32(params["w2"]), _f32(params["b2"])
    x = _f32(x)
    h = jnp.tanh(x @ w1 + b1)
    return h @ w2 + b2
