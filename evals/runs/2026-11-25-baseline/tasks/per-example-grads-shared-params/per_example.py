"""Per-example gradients of a linear regression loss, batched with jax.vmap.

The parameters are shared by the whole batch, so they are *not* mapped (`in_axes=None`); only the
example (x, y) is mapped. vmap of grad then returns one gradient per example, with the batch
dimension added in front of every parameter leaf.
"""

import jax
import jax.numpy as jnp


def _example_loss(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    return (x @ params["w"] + params["b"] - y) ** 2


_per_example_grads = jax.vmap(jax.grad(_example_loss), in_axes=(None, 0, 0))


def per_example_grads(
    params: dict[str, jax.Array], xs: jax.Array, ys: jax.Array
) -> dict[str, jax.Array]:
    """{"w": (n, d), "b": (n,)}: row i is the gradient of (xs[i] @ w + b - ys[i]) ** 2."""
    return _per_example_grads(params, jnp.asarray(xs), jnp.asarray(ys))


if __name__ == "__main__":
    kx, ky, kw = jax.random.split(jax.random.key(0), 3)
    xs = jax.random.normal(kx, (5, 3))
    ys = jax.random.normal(ky, (5,))
    params = {"w": jax.random.normal(kw, (3,)), "b": jnp.array(0.5)}
    g = jax.jit(per_example_grads)(params, xs, ys)
    r = xs @ params["w"] + params["b"] - ys
    print(jnp.allclose(g["w"], 2 * r[:, None] * xs), jnp.allclose(g["b"], 2 * r))
