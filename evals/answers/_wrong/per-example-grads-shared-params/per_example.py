"""vmap with the default in_axes=0: it maps every argument, the shared params included."""

import jax


def example_loss(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    return (x @ params["w"] + params["b"] - y) ** 2


def per_example_grads(params: dict[str, jax.Array], xs: jax.Array, ys: jax.Array) -> dict[str, jax.Array]:
    return jax.vmap(jax.grad(example_loss))(params, xs, ys)
