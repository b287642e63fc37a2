"""Release the compiled programs JAX keeps for jitted functions between program phases.

Every ``jax.jit`` function keeps a cache of traces and compiled XLA executables, one entry per distinct
set of input shapes/dtypes/static arguments. Those executables (and the device memory XLA reserves for
them) live as long as the cache entries, independently of your arrays, so ``del`` + ``gc.collect()``
does not free them. ``jax.clear_caches()`` drops all of these caches for every jitted function in the
process; the functions keep working and simply trace and compile again on their next call.
"""

from __future__ import annotations

import gc

import jax


def release_compiled_programs() -> None:
    """Drop every trace and compiled program cached by jax.jit in this process (all functions)."""
    jax.clear_caches()
    # Collect the now-unreferenced executables / Python objects promptly.
    gc.collect()
