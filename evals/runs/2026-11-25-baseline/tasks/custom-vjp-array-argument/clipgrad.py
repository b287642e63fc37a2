"""Gradient clipping with jax.custom_vjp that works under jax.jit.

Why the original failed: ``nondiff_argnums`` is meant for non-array, hashable values (Python
callables, ints, config objects). When an *array* is passed there and the function is called inside
``jit``, that array is a tracer of the outer trace, and it gets captured by the backward rule, which
runs in a different trace -> ``UnexpectedTracerError``.

The fix: make ``bound`` an ordinary (differentiable) argument, save it as a residual in the forward
pass, and return a zero cotangent for it in the backward pass.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


@jax.custom_vjp
def clip_gradient(x: jax.Array, bound: jax.Array) -> jax.Array:
    """Identity in the forward pass; clips the incoming cotangent to [-bound, bound] elementwise."""
    return x


def _clip_gradient_fwd(x, bound):
    # The residuals may contain arrays/tracers: they are passed to the backward rule properly.
    return x, bound


def _zero_cotangent(bound):
    if jnp.issubdtype(bound.dtype, jnp.inexact):
        return jnp.zeros_like(bound)
    # Integer inputs have float0 cotangents.
    return np.zeros(bound.shape, dtype=jax.dtypes.float0)


def _clip_gradient_bwd(bound, g):
    g_clipped = jnp.clip(g, -bound, bound).astype(g.dtype)
    return g_clipped, _zero_cotangent(bound)


clip_gradient.defvjp(_clip_gradient_fwd, _clip_gradient_bwd)


if __name__ == "__main__":
    @jax.jit
    def step(x, bound):
        return jax.grad(lambda x: jnp.sum(3.0 * clip_gradient(x, bound) ** 2))(x)

    x = jnp.array([1.0, -2.0, 0.1])
    bound = jnp.array([0.5, 1.0, 10.0])
    print(step(x, bound))  # [0.5, -1.0, 0.6]
