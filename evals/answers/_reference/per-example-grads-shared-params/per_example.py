"""Per-example gradients: grad of the one-example loss, mapped over the batch with shared params."""

import jax


def example_loss(params: dict[str, jax.Array], x: jax.Array, y: jax.Array) -> jax.Array:
    return (x @ params["w"] + params["b"] - y) ** 2


def per_example_grads(params: dict[str, jax.Array], xs: jax.Array, ys: jax.Array) -> dict[str, jax.Array]:
    """in_axes: None for the shared params, 0 for each example's x and y."""
    return jax.vmap(jax.grad(example_loss), in_axes=(None, 0, 0))(params, xs, ys)
