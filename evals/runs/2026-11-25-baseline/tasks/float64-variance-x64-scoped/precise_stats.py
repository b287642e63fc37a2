"""Variance in float64 while the rest of the program stays in float32 (x64 mode off globally).

Readings around 1e8 with fluctuations of ~1 cannot be represented in float32 (its spacing at 1e8 is
8), so the deviations are lost before the variance is even computed. JAX's 64-bit mode can be enabled
*for a scope* with a context manager; inside it float64 arrays are real float64 and computations (and
jit compilations) are done in double precision; on exit the previous setting (off) is restored, so the
rest of the program keeps float32 defaults.
"""

from __future__ import annotations

import contextlib

import jax
import jax.numpy as jnp
import numpy as np


def _x64_on() -> bool:
    """True if 64-bit mode is currently in effect (float64 is not canonicalized to float32)."""
    return jax.dtypes.canonicalize_dtype(np.float64) == np.dtype(np.float64)


def _scoped_x64_context():
    """A context manager that enables x64 for its block (newer and older JAX spellings)."""
    factory = getattr(jax, "enable_x64", None)  # newer JAX: `with jax.enable_x64(True):`
    if callable(factory):
        try:
            cm = factory(True)
        except TypeError:
            cm = None
        if cm is not None and hasattr(cm, "__enter__"):
            return cm
    try:
        from jax.experimental import enable_x64 as experimental_enable_x64  # older JAX
    except ImportError:
        return None
    return experimental_enable_x64(True)


@contextlib.contextmanager
def _x64_enabled():
    """Enable 64-bit mode for the enclosed block only; the previous setting (off) is restored."""
    previous = _x64_on()
    cm = _scoped_x64_context()
    try:
        if cm is not None:
            with cm:
                yield
        else:
            jax.config.update("jax_enable_x64", True)
            yield
    finally:
        if _x64_on() != previous:  # never leave 64-bit mode switched on
            jax.config.update("jax_enable_x64", previous)


def precise_variance(samples: np.ndarray) -> jax.Array:
    """Population variance (ddof=0) of `samples`, computed by JAX in float64.

    Returns a scalar float64 jax.Array. 64-bit mode is only enabled during this call.
    """
    samples = np.asarray(samples, dtype=np.float64)
    with _x64_enabled():
        x = jnp.asarray(samples, dtype=jnp.float64)
        # Two-pass formula (mean first, then mean squared deviation): stable for large offsets.
        mean = jnp.mean(x)
        var = jnp.mean(jnp.square(x - mean))
        var = jax.block_until_ready(var)
    return var
