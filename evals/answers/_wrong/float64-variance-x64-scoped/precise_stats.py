"""Mid-2025 form: the experimental x64 context manager, removed from jax.experimental since."""

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import enable_x64


def _variance(x: jax.Array) -> jax.Array:
    centred = x - jnp.mean(x)
    return jnp.mean(centred * centred)


def precise_variance(samples: np.ndarray) -> jax.Array:
    with enable_x64():
        return jax.jit(_variance)(jnp.asarray(samples, dtype=jnp.float64))
