"""Per-example gradients of a linear regression, batched with vmap.

The loss is written for ONE example (x of shape (d,), y a scalar) so that `jax.grad` returns that
example's gradient; `jax.vmap` then maps it over the batch. `in_axes=(None, 0, 0)`: the parameters
are shared (not mapped), the inputs and targets are mapped over their leading axis. The result has the
structure of `params` with a leading batch axis: {"w": (n, d), "b": (n,)}.
"""

import jax
import jax.numpy as jnp


def _example_loss(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    """Squared error of one example: x (d,), y () -> scalar."""
    return (x @ params["w"] + params["b"] - y) ** 2


_per_example_grad = jax.vmap(jax.grad(_example_loss), in_axes=(None, 0, 0))


def per_example_grads(params: dict[str, jax.Array], xs: jax.Array, ys: jax.Array) -> dict[str, jax.Array]:
    """Row i of each leaf is the gradient of (xs[i] @ w + b - ys[i]) ** 2 w.r.t. that parameter.

    params = {"w": (d,), "b": ()}, xs (n, d), ys (n,) -> {"w": (n, d), "b": (n,)}. Jit-compatible.
    """
    return _per_example_grad(params, xs, ys)


if __name__ == "__main__":
    kx, ky, kw = jax.random.split(jax.random.key(0), 3)
    xs, ys = jax.random.normal(kx, (5, 3)), jax.random.normal(ky, (5,))
    params = {"w": jax.random.normal(kw, (3,)), "b": jnp.array(0.5)}
    g = jax.jit(per_example_grads)(params, xs, ys)
    r = 2.0 * (xs @ params["w"] + params["b"] - ys)  # closed form: d/dw = 2 r x, d/db = 2 r
    assert jnp.allclose(g["w"], r[:, None] * xs, atol=1e-5) and jnp.allclose(g["b"], r, atol=1e-5)
    print({k: v.shape for k, v in g.items()})  # {'w': (5, 3), 'b': (5,)}
