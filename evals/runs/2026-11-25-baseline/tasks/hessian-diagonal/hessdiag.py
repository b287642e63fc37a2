"""Exact diagonal of the Hessian of a scalar function of a vector.

autograd's ``elementwise_grad`` applied twice only gives the Hessian diagonal when the function is
elementwise (no cross terms); in general it returns row sums of the Hessian instead. The exact
diagonal needs H[i, i] = e_i^T H e_i. In JAX each Hessian-vector product H v is cheap with
forward-over-reverse differentiation (``jax.jvp`` of ``jax.grad``); vmapping it over the basis vectors
and keeping the i-th entry of the i-th product gives exactly the diagonal. Everything is traceable, so
the function works inside ``jax.jit`` (and under ``vmap``).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp


def hessian_diagonal(f: Callable[[jax.Array], jax.Array], x: jax.Array) -> jax.Array:
    """Return d^2 f / d x_i^2 for every i (the diagonal of the Hessian of f at x), shaped like x."""
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.float32)
    n = x.shape[0]
    grad_f = jax.grad(f)

    def diag_entry(i):
        e_i = jnp.zeros_like(x).at[i].set(1)
        _, hvp = jax.jvp(grad_f, (x,), (e_i,))  # H @ e_i (forward-over-reverse)
        return hvp[i]

    return jax.vmap(diag_entry)(jnp.arange(n))
