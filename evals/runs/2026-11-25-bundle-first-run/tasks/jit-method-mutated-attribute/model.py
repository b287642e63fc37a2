"""A linear model whose jitted ``predict`` always uses the current weight and bias.

Why ``@partial(jax.jit, static_argnums=0)`` returned stale predictions: a static argument is a
compile-time constant, looked up in the cache by ``hash()`` and ``==``. A plain class hashes by
identity, so after ``model.weight = ...`` the same object is the same cache key, and the cached
program, which baked the *old* arrays in as constants, is reused without any error. (And every new
instance compiles again.)

The fix is to make ``self`` a pytree whose leaves are the arrays: ``jax.jit`` then traces ``weight``
and ``bias`` as ordinary inputs. New values (same shapes and dtypes) reuse the compiled program and
are seen on the next call; only a new shape or dtype compiles again.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class LinearModel:
    """``predict(x) = x @ weight + bias``. ``weight``: (d, k), ``bias``: (k,); both reassignable."""

    weight: jax.Array  # a pytree leaf: traced, not part of the cache key
    bias: jax.Array

    @jax.jit
    def predict(self, x: jax.Array) -> jax.Array:
        """Compiled with ``jax.jit``; ``self`` is passed as a pytree of its current arrays."""
        return x @ self.weight + self.bias


if __name__ == "__main__":
    x = jnp.ones((4, 3))
    w1, b1 = jnp.ones((3, 2)), jnp.zeros(2)
    w2, b2 = 2.0 * jnp.ones((3, 2)), jnp.ones(2)

    compiles: list[str] = []

    def on_compile(event: str, duration: float, **kwargs) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            compiles.append(event)

    jax.monitoring.register_event_duration_secs_listener(on_compile)  # only predict runs from here on

    model = LinearModel(w1, b1)
    first = model.predict(x)
    model.weight, model.bias = w2, b2  # e.g. after loading new values
    second = model.predict(x)
    n_compiles = len(compiles)

    assert jnp.allclose(first, 3.0)
    assert jnp.allclose(second, 7.0)  # the new values are used
    print("compilations of predict:", n_compiles)  # 1
