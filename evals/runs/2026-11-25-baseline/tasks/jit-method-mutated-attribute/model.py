"""Jitting a method so it always uses the object's *current* attributes.

``@partial(jax.jit, static_argnums=0)`` makes ``self`` a static argument: JAX hashes it (by identity
for an ordinary object), and the weights read from ``self`` during tracing are baked into the
compiled program as constants. Reassigning ``model.weight`` does not change the hash, so the cached,
stale program is reused.

Fix: make the model a pytree whose leaves are its arrays. Then ``self`` is an ordinary traced
argument of the jitted method: the current ``weight`` and ``bias`` are passed in on every call, and
because only their shapes/dtypes (and the static tree structure) enter the cache key, changing their
*values* does not trigger recompilation.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


@jax.tree_util.register_pytree_node_class
class LinearModel:
    def __init__(self, weight: jax.Array, bias: jax.Array):
        self.weight = weight  # (d, k)
        self.bias = bias  # (k,)

    # --- pytree protocol: the arrays are children (traced), nothing is static -----------------
    def tree_flatten(self):
        return (self.weight, self.bias), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        obj = object.__new__(cls)
        obj.weight, obj.bias = children
        return obj

    # --- compiled method ----------------------------------------------------------------------
    @jax.jit
    def predict(self, x: jax.Array) -> jax.Array:
        """x (n, d) -> x @ weight + bias (n, k), using the current attributes."""
        return x @ self.weight + self.bias

    def __repr__(self) -> str:
        return f"LinearModel(weight={self.weight!r}, bias={self.bias!r})"


if __name__ == "__main__":
    model = LinearModel(jnp.ones((3, 2)), jnp.zeros((2,)))
    x = jnp.ones((4, 3))
    print(model.predict(x))
    model.weight = 2 * jnp.ones((3, 2))
    model.bias = jnp.ones((2,))
    print(model.predict(x))  # new values, same compiled program
