"""Per-example gradients of a linear regression with shared parameters, batched with vmap.

``jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))``: the parameters are *shared*
(``None``: not mapped), the inputs and targets are mapped along axis 0. With the default
``in_axes=0`` vmap would also map the parameters: the scalar ``b`` fails ("rank should be at least
1"), and when n == d, ``w`` is silently sliced per example and the result is wrong.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


def example_loss(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    """Squared error of ONE example: x of shape (d,), y a scalar."""
    return (jnp.dot(x, params["w"]) + params["b"] - y) ** 2


_per_example_grads = jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))


def per_example_grads(params: dict[str, jax.Array], xs: jax.Array, ys: jax.Array) -> dict[str, jax.Array]:
    """{"w": (n, d), "b": (n,)}: row i is the gradient of (xs[i] @ w + b - ys[i]) ** 2.

    Pure and traceable: works as is and under ``jax.jit``.
    """
    return _per_example_grads(params, xs, ys)


if __name__ == "__main__":
    kx, ky, kw = jax.random.split(jax.random.key(0), 3)
    n, d = 5, 5  # n == d: the case where forgetting in_axes=None would silently give wrong numbers
    xs, ys = jax.random.normal(kx, (n, d)), jax.random.normal(ky, (n,))
    params = {"w": jax.random.normal(kw, (d,)), "b": jnp.float32(0.3)}

    grads = jax.jit(per_example_grads)(params, xs, ys)
    assert grads["w"].shape == (n, d) and grads["b"].shape == (n,)
    residual = xs @ params["w"] + params["b"] - ys
    assert jnp.allclose(grads["w"], 2 * residual[:, None] * xs, atol=1e-5)
    assert jnp.allclose(grads["b"], 2 * residual, atol=1e-5)
    print("ok")
