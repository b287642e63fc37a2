"""The exact diagonal of the Hessian of a scalar function of a vector.

Why not ``elementwise_grad`` twice (or its JAX twin ``grad(lambda x: sum(grad(f)(x)))``): that
differentiates the *sum* of the gradient, which gives ``H @ 1``, the row sums of the Hessian. They
equal the diagonal only when ``f`` is a sum of one-coordinate functions (a diagonal Hessian); for any
``f`` that couples coordinates the result is wrong, silently.

The exact diagonal needs one Hessian-vector product per coordinate: ``H e_i`` is the i-th column and
its i-th entry is ``H[i, i]``. A Hessian-vector product is ``jax.jvp`` of ``jax.grad`` (forward over
reverse), a small multiple of the cost of one gradient, without building the n x n Hessian.
``lax.map`` runs the n products one after the other (memory of one product); pass
``batch_size=`` to trade memory for speed, or use ``jnp.diag(jax.hessian(f)(x))`` for small n.
Everything is traceable, so it works inside ``jax.jit`` (and under ``vmap``).
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
from jax import lax


def _hvp(f: Callable[[jax.Array], jax.Array], x: jax.Array, v: jax.Array) -> jax.Array:
    """H(x) @ v by forward-over-reverse differentiation."""
    return jax.jvp(jax.grad(f), (x,), (v,))[1]


def hessian_diagonal(
    f: Callable[[jax.Array], jax.Array], x: jax.Array, *, batch_size: int | None = None
) -> jax.Array:
    """Return ``diag(H(x))``: entry i is d^2 f / dx_i^2 at x. Same shape as x (1-D, floating point).

    ``batch_size`` (optional) computes that many Hessian-vector products at once; the default runs
    them sequentially, with the memory of a single product.
    """
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        x = x.astype(jnp.result_type(float))
    basis = jnp.eye(x.shape[0], dtype=x.dtype)
    # For basis vector e_i: (H e_i)[i] = (H e_i) . e_i = H[i, i].
    return lax.map(lambda e: jnp.vdot(_hvp(f, x, e), e), basis, batch_size=batch_size)


if __name__ == "__main__":

    def energy(x):
        """Couples the coordinates: the Hessian has non-zero off-diagonal entries."""
        return jnp.sum(jnp.sin(x)) * jnp.sum(x**2) + x[0] * x[1] ** 3

    x = jnp.array([0.3, -1.2, 0.7, 2.0])
    exact = jnp.diag(jax.hessian(energy)(x))
    ours = jax.jit(hessian_diagonal, static_argnums=0)(energy, x)
    row_sums = jax.grad(lambda z: jnp.sum(jax.grad(energy)(z)))(x)  # what elementwise_grad twice gives
    print("exact   ", exact)
    print("ours    ", ours)
    print("row sums", row_sums)
    assert jnp.allclose(ours, exact, rtol=1e-5)
    assert not jnp.allclose(row_sums, exact, rtol=0.1)
