"""autograd's elementwise_grad applied twice: the gradient of the summed gradient."""

from collections.abc import Callable

import jax
import jax.numpy as jnp


def hessian_diagonal(f: Callable[[jax.Array], jax.Array], x: jax.Array) -> jax.Array:
    """d/dx sum(grad f(x)), read as the vector of second derivatives."""
    return jax.grad(lambda v: jnp.sum(jax.grad(f)(v)))(x)
