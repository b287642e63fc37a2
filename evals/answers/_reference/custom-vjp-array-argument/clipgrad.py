"""A custom_vjp gradient clipper: the array bound is an ordinary argument with a None cotangent."""

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x: jax.Array, bound: jax.Array) -> jax.Array:
    """The identity; the backward pass clips the cotangent to [-bound, bound]."""
    return x


def _fwd(x: jax.Array, bound: jax.Array) -> tuple[jax.Array, jax.Array]:
    return x, bound


def _bwd(bound: jax.Array, g: jax.Array) -> tuple[jax.Array, None]:
    return jnp.clip(g, -bound, bound), None  # None: zero cotangent for the bound


clip_gradient.defvjp(_fwd, _bwd)
