"""Elementwise gradient clipping with jax.custom_vjp that works under jax.jit.

Why the original failed
-----------------------
`nondiff_argnums` of `jax.custom_vjp` is only for values that are *not traced*: Python numbers,
strings, functions, configuration objects. Eagerly, your `bound` was a concrete array, so it worked.
Inside a jitted step `bound` is a jit argument, i.e. a tracer, and custom_vjp rejects a tracer in a
nondiff position with `UnexpectedTracerError` ("Found a JAX Tracer object passed as an argument to a
custom_vjp function in a position indicated by nondiff_argnums as non-differentiable").

The fix
-------
Make `bound` an ordinary (differentiable) argument, save it as a residual in the forward rule, and
return a zero cotangent for it in the backward rule (`None` means "zero" to custom_vjp). This works
with `bound` traced, with `jax.jit(jax.grad(...))` and with `jax.grad(jax.jit(...))`, and under vmap.
(Closing over `bound` instead would break when `jax.grad` is applied outside `jit`.)
"""

from __future__ import annotations

import jax
import jax.numpy as jnp


@jax.custom_vjp
def clip_gradient(x: jax.Array, bound: jax.Array) -> jax.Array:
    """Identity on the forward pass; clips the cotangent to [-bound, bound] elementwise on the way back.

    bound has x's shape (or broadcasts to it), all entries > 0. It receives a zero gradient.
    """
    return x


def _clip_gradient_fwd(x: jax.Array, bound: jax.Array):
    # The backward pass needs only the bound.
    return x, bound


def _clip_gradient_bwd(bound: jax.Array, g: jax.Array):
    # Cotangent for x: clipped elementwise. Cotangent for bound: None == zero gradient.
    return jnp.clip(g, -bound, bound), None


clip_gradient.defvjp(_clip_gradient_fwd, _clip_gradient_bwd)


if __name__ == "__main__":
    weights = jnp.array([3.0, -0.2, -5.0])

    def loss(x, bound):
        return jnp.sum(weights * clip_gradient(x, bound))

    x = jnp.ones(3)
    bound = jnp.array([1.0, 1.0, 2.0])
    print(jax.jit(jax.grad(loss))(x, bound))              # [ 1.  -0.2 -2. ]
    print(jax.grad(jax.jit(loss))(x, bound))              # [ 1.  -0.2 -2. ]
    print(jax.jit(jax.grad(loss, argnums=1))(x, bound))   # [0. 0. 0.]
    print(jax.jit(clip_gradient)(x, bound))               # [1. 1. 1.]  (identity forward)
