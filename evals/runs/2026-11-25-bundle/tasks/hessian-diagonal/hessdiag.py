"""Exact diagonal of the Hessian of a scalar function of a vector.

About autograd's `elementwise_grad` applied twice: it differentiates the *sum* of the gradient, which
gives H @ 1 (the row sums of the Hessian). That equals the diagonal only when f is a sum of
one-coordinate functions (a diagonal Hessian); for any f that couples coordinates it is wrong. The
JAX one-liner `jax.grad(lambda x: jnp.sum(jax.grad(f)(x)))` has the same flaw.

The exact diagonal: H[i, i] = e_i . (H e_i), and H e_i is a Hessian-vector product, computed without
forming H by forward-over-reverse differentiation, `jax.jvp(jax.grad(f), (x,), (e_i,))`, which costs
a small multiple of one gradient. One product per coordinate, run with `lax.map` one after the
other, so the working memory is that of a single product (a `vmap` would run them all at once and
hold n of them, like `jnp.diag(jax.hessian(f)(x))`, which builds the whole n x n matrix).
No exact method is asymptotically cheaper than n Hessian-vector products in general.
Everything is traceable, so `hessian_diagonal` works inside `jax.jit` (with f closed over or static).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from jax import lax


def _hvp(f: Callable[[jax.Array], jax.Array], x: jax.Array, v: jax.Array) -> jax.Array:
    """H(x) @ v by forward-over-reverse differentiation."""
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


def hessian_diagonal(f: Callable[[jax.Array], jax.Array], x: jax.Array) -> jax.Array:
    """diag of the Hessian of scalar f at the 1-D float array x: d^2 f / d x_i^2, same shape as x."""
    x = jnp.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got shape {x.shape}")
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(f"x must be a floating-point array, got {x.dtype}")
    n = x.shape[0]
    if n == 0:
        return jnp.zeros_like(x)

    def diag_entry(i: jax.Array) -> jax.Array:
        e_i = jnp.zeros_like(x).at[i].set(1.0)      # basis vector, built on the fly
        return _hvp(f, x, e_i)[i]                    # (H e_i)[i] = H[i, i]

    return lax.map(diag_entry, jnp.arange(n))


if __name__ == "__main__":
    def energy(x):
        return jnp.sum(jnp.sin(x)) * jnp.sum(x**2) + x[0] * x[1] ** 3

    x = jnp.array([0.3, -1.2, 0.7, 2.0])
    exact = jnp.diag(jax.hessian(energy)(x))
    print(hessian_diagonal(energy, x))
    print(exact)
    assert jnp.allclose(hessian_diagonal(energy, x), exact, rtol=1e-5)
    jitted = jax.jit(lambda x: hessian_diagonal(energy, x))
    assert jnp.allclose(jitted(x), exact, rtol=1e-5)
    row_sums = jax.grad(lambda x: jnp.sum(jax.grad(energy)(x)))(x)  # the elementwise_grad-twice answer
    print(row_sums)  # differs: H @ 1, not diag(H)
