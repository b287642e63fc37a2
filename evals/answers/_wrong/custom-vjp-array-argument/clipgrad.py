"""The clipper with the array bound in nondiff_argnums: fine eagerly, a tracer under jit."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.custom_vjp, nondiff_argnums=(1,))
def clip_gradient(x: jax.Array, bound: jax.Array) -> jax.Array:
    """The identity; the backward pass clips the cotangent to [-bound, bound]."""
    return x


def _fwd(x: jax.Array, bound: jax.Array) -> tuple[jax.Array, None]:
    return x, None


def _bwd(bound: jax.Array, _, g: jax.Array) -> tuple[jax.Array]:
    return (jnp.clip(g, -bound, bound),)


clip_gradient.defvjp(_fwd, _bwd)
