"""Benchmark a jitted function: compile time and steady-state run time, measured apart.

Why your time.time() numbers were misleading:

* The first call of a jax.jit function traces and compiles it for the argument shapes/dtypes, so
  it is much slower than later calls. Here compilation is done on its own, ahead of time, with
  ``fn.lower(*args).compile()`` and timed separately.
* JAX dispatches asynchronously: a call returns as soon as the work is *enqueued*, with a
  future-like array that is filled in later. A timer around the call alone measures the dispatch,
  not the computation, which is why JAX looked hundreds of times faster than NumPy. Every timed call
  here ends with ``jax.block_until_ready`` on the whole output pytree.
* One run is noise; the median over ``n_iter`` runs (after an untimed warm-up) is reported.
* ``time.perf_counter`` is used instead of ``time.time`` (monotonic, high resolution).
"""

from __future__ import annotations

import statistics
import time

import jax


def benchmark(fn, *args, n_iter: int = 10) -> dict:
    """Time compilation and steady-state execution of a jitted ``fn`` on ``args``.

    Args:
      fn: a function wrapped in ``jax.jit`` that has not yet been called with these argument shapes.
      *args: its (positional) arguments.
      n_iter: number of timed calls of the compiled function.

    Returns:
      ``{"compile_seconds": float, "run_seconds": float}``: the wall time to trace, lower and
      compile ``fn`` for ``args``, and the median wall time of one call of the compiled function
      over ``n_iter`` calls, each measured until its result has been computed.
    """
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}")

    # Make sure the inputs themselves are ready, so no pending producer work is timed.
    jax.block_until_ready(args)

    # Trace + lower + compile, ahead of time and on its own.
    start = time.perf_counter()
    compiled = fn.lower(*args).compile()
    compile_seconds = time.perf_counter() - start

    # Untimed warm-up call of the compiled executable (first-execution effects, allocator, etc.).
    jax.block_until_ready(compiled(*args))

    runs = []
    for _ in range(n_iter):
        start = time.perf_counter()
        jax.block_until_ready(compiled(*args))  # wait for the real work, not just the dispatch
        runs.append(time.perf_counter() - start)

    return {
        "compile_seconds": float(compile_seconds),
        "run_seconds": float(statistics.median(runs)),
    }


if __name__ == "__main__":
    import jax.numpy as jnp

    @jax.jit
    def twenty_layers(x):
        for _ in range(20):
            x = jnp.tanh(x @ x)
        return x

    x = jax.random.normal(jax.random.key(0), (512, 512))
    print(benchmark(twenty_layers, x, n_iter=10))
