"""The exact Hessian diagonal: one Hessian-vector product (jvp of grad) per basis vector."""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def hvp(f: Callable[[jax.Array], jax.Array], x: jax.Array, v: jax.Array) -> jax.Array:
    """H(x) @ v by forward-over-reverse differentiation."""
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


def hessian_diagonal(f: Callable[[jax.Array], jax.Array], x: jax.Array) -> jax.Array:
    """diag(H(x)): entry i of H(x) @ e_i, the products computed one after the other (memory n)."""
    return jax.lax.map(lambda e: hvp(f, x, e) @ e, jnp.eye(x.size, dtype=x.dtype))
