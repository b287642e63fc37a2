"""A linear model whose jitted `predict` always uses the current weight and bias.

Why `@partial(jax.jit, static_argnums=0)` returned stale predictions: a static argument is part of
the compilation cache key and is baked into the compiled program. A plain class hashes by identity,
so after `model.weight = ...` it is still "the same" static argument: the cache hits and the program
that holds the *old* weight and bias as constants runs again, silently. (And every new instance
compiles again.) Static is for configuration that decides the program, not for weights.

The fix: make the model a pytree whose leaves are the weight and bias
(`jax.tree_util.register_dataclass`). Then `self` is an ordinary traced argument of the jitted
method: its arrays are inputs to the compiled program, not constants. Reassigning them is seen on
the next call, and as long as shapes and dtypes stay the same the call reuses the one compilation.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class LinearModel:
    weight: jax.Array  # (d, k), a pytree leaf: traced, not part of the cache key
    bias: jax.Array    # (k,)

    @jax.jit
    def predict(self, x: jax.Array) -> jax.Array:
        """x @ self.weight + self.bias for x of shape (n, d), using the current attributes."""
        return x @ self.weight + self.bias


if __name__ == "__main__":
    model = LinearModel(jnp.ones((3, 2)), jnp.zeros(2))
    x = jnp.arange(6.0).reshape(2, 3)
    print(model.predict(x))             # [[ 3.  3.] [12. 12.]]
    model.weight = 2.0 * jnp.ones((3, 2))
    model.bias = jnp.array([1.0, -1.0])
    print(model.predict(x))             # [[ 7.  5.] [25. 23.]]  (new values are used)
    assert jnp.allclose(model.predict(x), x @ model.weight + model.bias)
    other = LinearModel(jnp.zeros((3, 2)), jnp.ones(2))
    print(other.predict(x))             # same shapes: no new compilation
    print(LinearModel.predict._cache_size())  # 1
