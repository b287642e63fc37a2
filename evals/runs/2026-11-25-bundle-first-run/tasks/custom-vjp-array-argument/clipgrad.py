"""An identity whose backward pass clips the gradient elementwise, with an *array* bound.

Why the original failed under jit: ``nondiff_argnums`` of ``jax.custom_vjp`` is only for values that
are not traced (Python numbers, strings, functions, config objects). Inside ``jax.jit`` every array
argument is a tracer, so passing ``bound`` there raises ``UnexpectedTracerError`` ("Found a JAX Tracer
object passed as an argument to a custom_vjp function in a position indicated by nondiff_argnums as
non-differentiable"). Eagerly the bound is a concrete array, which is why it seemed to work.

The fix: make ``bound`` an ordinary (differentiable) argument, save it as a residual in the forward
rule, and return a zero cotangent for it (``None``) in the backward rule. This works with
``jax.jit(jax.grad(...))`` and with ``jax.grad(jax.jit(...))``, and under ``vmap``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x: jax.Array, bound: jax.Array) -> jax.Array:
    """Identity on the way forward; the cotangent to ``x`` is clipped to ``[-bound, bound]``.

    ``bound`` has ``x``'s shape (or broadcasts to it), all entries > 0, and gets a zero gradient.
    """
    return x


def _clip_gradient_fwd(x: jax.Array, bound: jax.Array):
    return x, bound  # the backward pass needs only the bound


def _clip_gradient_bwd(bound: jax.Array, g: jax.Array):
    # None is a zero cotangent for `bound` (JAX materialises zeros of the right shape and dtype).
    return jnp.clip(g, -bound, bound), None


clip_gradient.defvjp(_clip_gradient_fwd, _clip_gradient_bwd)


if __name__ == "__main__":
    weights = jnp.array([3.0, -0.2, -5.0])
    x = jnp.ones(3)
    bound = jnp.array([1.0, 1.0, 2.0])

    def loss(x, bound):
        return jnp.sum(weights * clip_gradient(x, bound))

    gx = jax.jit(jax.grad(loss))(x, bound)
    gb = jax.jit(jax.grad(loss, argnums=1))(x, bound)
    print(gx, gb)  # [ 1.  -0.2 -2. ] [0. 0. 0.]
    assert jnp.allclose(gx, jnp.array([1.0, -0.2, -2.0]))
    assert jnp.array_equal(gb, jnp.zeros(3))
    assert jnp.allclose(jax.grad(jax.jit(loss))(x, bound), gx)
    assert jnp.array_equal(jax.jit(clip_gradient)(x, bound), x)
