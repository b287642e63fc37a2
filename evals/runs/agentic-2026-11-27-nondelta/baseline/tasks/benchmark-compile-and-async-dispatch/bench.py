"""Benchmark helper for jitted JAX functions.

Why your numbers looked wrong:

* JAX dispatches work asynchronously: a jitted call returns as soon as the
  computation is *enqueued*, so ``time.time()`` around the call measures the
  dispatch, not the computation.  Every timed call here waits for its result
  with ``jax.block_until_ready``.
* The first call of a jitted function traces and compiles it for the argument
  shapes/dtypes.  Here that is measured on its own, with the ahead-of-time API
  (``fn.lower(*args).compile()``), and the steady-state timing uses the
  compiled executable only, after a warm-up call.
* ``time.perf_counter`` is used (monotonic, high resolution) instead of
  ``time.time``, and the median over ``n_iter`` calls is reported.
"""

from __future__ import annotations

import statistics
import time

import jax


def _block(out):
    # Wait until every array in the (possibly nested) output is computed.
    return jax.block_until_ready(out)


def benchmark(fn, *args, n_iter: int = 10) -> dict:
    """Time compilation and steady-state execution of a jitted ``fn``.

    Args:
      fn: a ``jax.jit``-wrapped function not yet called with these argument
        shapes.
      *args: the arguments to call it with (device arrays are best: NumPy
        inputs would add a host-to-device copy to every call).
      n_iter: number of timed calls (median is reported).

    Returns:
      ``{"compile_seconds": float, "run_seconds": float}``: the time to trace
      and compile ``fn`` for ``args``, and the median wall time of one call of
      the compiled function, each call measured until its result is ready.
    """
    if n_iter < 1:
        raise ValueError("n_iter must be >= 1")

    # Make sure the inputs are materialised so we don't time their production.
    _block(args)

    # 1) Trace + lower + compile, timed on their own.
    t0 = time.perf_counter()
    compiled = fn.lower(*args).compile()
    compile_seconds = time.perf_counter() - t0

    # 2) Warm-up call (not timed): first-execution effects such as buffer
    #    allocation and dispatch-cache population.
    def call():
        return compiled(*args)

    try:
        _block(call())
    except TypeError:
        # A compiled executable takes only the *dynamic* arguments; if fn has
        # static arguments, call the jitted function instead (it compiles
        # once here, during the untimed warm-up, and is cached afterwards).
        def call():
            return fn(*args)

        _block(call())

    # 3) Steady state: each call measured until its result is computed.
    times = []
    for _ in range(n_iter):
        t0 = time.perf_counter()
        _block(call())
        times.append(time.perf_counter() - t0)

    return {
        "compile_seconds": float(compile_seconds),
        "run_seconds": float(statistics.median(times)),
    }


if __name__ == "__main__":
    import numpy as np
    import jax.numpy as jnp

    @jax.jit
    def f(a, b):
        return jnp.tanh(a @ b).sum()

    a = jnp.ones((1000, 1000), jnp.float32)
    b = jnp.ones((1000, 1000), jnp.float32)
    print("jax  :", benchmark(f, a, b))
    an, bn = np.asarray(a), np.asarray(b)
    ts = []
    for _ in range(10):
        t0 = time.perf_counter()
        np.tanh(an @ bn).sum()
        ts.append(time.perf_counter() - t0)
    print("numpy:", statistics.median(ts))
