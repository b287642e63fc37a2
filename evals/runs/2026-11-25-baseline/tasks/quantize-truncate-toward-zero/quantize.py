"""JAX port of a NumPy quantiser that rounds toward zero (np.fix), usable under jax.jit.

`jnp.trunc` rounds toward zero (-2.7 -> -2, 2.7 -> 2), like np.fix; `jnp.floor` would send
-2.7 to -3 and `jnp.round` rounds to nearest. Everything is computed in x's dtype (float32), with
`step` cast to it, so a traced or static step gives the same float32 results as NumPy on float32.
"""

import jax
import jax.numpy as jnp


def quantize(x: jax.Array, step: float) -> tuple[jax.Array, jax.Array]:
    """q = trunc(x / step) * step and r = x - q, both shaped like x and float32."""
    x = jnp.asarray(x, dtype=jnp.float32)
    step = jnp.asarray(step, dtype=x.dtype)
    q = jnp.trunc(x / step) * step
    return q, x - q


if __name__ == "__main__":
    x = jnp.array([-2.7, -0.3, 0.0, 0.3, 2.7], jnp.float32)
    print(quantize(x, 1.0))
    print(jax.jit(quantize)(x, 1.0))
    print(jax.jit(quantize, static_argnums=1)(x, 0.5))
