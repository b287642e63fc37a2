"""Release the compiled programs JAX keeps between phases of a long-running program.

Why deleting arrays and gc.collect() did not help: the memory is not (only) in your arrays. Every
`jax.jit` function keeps one compiled executable per call signature (shapes, dtypes, weak types,
static values, pytree structure), plus the traced jaxprs and lowerings behind it, in process-wide
in-memory caches. They are bounded by a number of entries (thousands), not by bytes, and they live
as long as the jitted function objects do, which for module-level functions is forever. A phase that
evaluates jitted functions on many different shapes therefore leaves a large number of executables
behind.

`jax.clear_caches()` empties all of them: the C++ jit dispatch caches, the trace/lowering/compilation
caches, for every jitted function in the process (`f.clear_cache()` would clear only one function).
The functions keep working: the next call simply traces and compiles again and gives the same
results. The persistent on-disk compilation cache, if you enabled one, is not touched, so recompiles
after clearing can still be served from disk.

Notes:
  * Clearing is not free: everything you call afterwards compiles again. Call this between phases,
    never inside a loop.
  * It drops compiled programs, not arrays. Device buffers are freed when the last Python reference
    to them goes, so still `del` big arrays you no longer need.
  * Better still, reduce how many programs the first phase creates: pad inputs to a few bucket sizes
    (with a mask) so that many shapes share a handful of compilations.
"""

from __future__ import annotations

import gc

import jax


def release_compiled_programs() -> None:
    """Drop every compiled program and trace that jax.jit has cached in this process.

    Afterwards any jitted function traces and compiles again on its next call and returns the same
    results as before.
    """
    jax.clear_caches()
    # Collect objects that only the caches kept alive (executables, jaxprs, closed-over constants),
    # so their host (and device) memory is released now rather than at some later GC cycle.
    gc.collect()


if __name__ == "__main__":
    import jax.numpy as jnp

    @jax.jit
    def unit(v):
        return v / jnp.linalg.norm(v)

    before = [unit(jnp.ones(n)) for n in range(1, 50)]
    print("cached signatures before:", unit._cache_size())   # 49
    release_compiled_programs()
    print("cached signatures after: ", unit._cache_size())   # 0
    after = [unit(jnp.ones(n)) for n in range(1, 50)]          # recompiles, same results
    assert all(bool(jnp.array_equal(a, b)) for a, b in zip(before, after))
