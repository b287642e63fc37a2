"""Release every compiled program JAX holds in this process, between phases of work.

Why deleting arrays and ``gc.collect()`` did not help: the memory is not held by your arrays but by
JAX's in-memory caches. Every ``jax.jit`` function keeps one traced jaxpr, one lowering and one
compiled executable per input signature (shape, dtype, weak type, pytree structure, static values,
sharding). These caches are bounded by a number of entries, not by bytes (thousands of entries), and
module-level jitted functions are never freed, so a phase that meets many shapes keeps all of them
alive until the process exits.

``jax.clear_caches()`` empties every ``jax.jit`` cache in the process (the C++ dispatch caches, the
traced-jaxpr / lowering / compilation caches and the tracing caches behind them), for all jitted
functions at once. ``f.clear_cache()`` would only empty one function's cache.

Notes:

* The jitted functions keep working: the next call of any of them traces and compiles again and gives
  the same result. Clearing is not free, so do it between phases, never inside a loop.
* It drops compiled programs, not arrays: device buffers are freed when the last reference to them
  goes (``del`` them, as you did).
* The persistent compilation cache on disk (``jax_compilation_cache_dir``), if you use one, is not
  touched; the next compilation may be served from it.
* Fixing the cause is better where possible: pad inputs to a few bucket sizes so that fewer programs
  are compiled in the first place.

Usage::

    from phases import release_compiled_programs

    run_phase_one()               # many shapes -> many compiled programs
    del phase_one_results
    release_compiled_programs()   # drop them all
    run_phase_two()
"""

from __future__ import annotations

import gc

import jax


def release_compiled_programs() -> None:
    """Drop every compiled program and trace that ``jax.jit`` has cached in this process.

    Applies to all jitted functions, not only one. Calling any of them afterwards traces and compiles
    again, with the same results.
    """
    jax.clear_caches()
    # The executables are now unreferenced by JAX; collect any reference cycles so that their host
    # (and, on accelerators, device) memory is returned promptly.
    gc.collect()
