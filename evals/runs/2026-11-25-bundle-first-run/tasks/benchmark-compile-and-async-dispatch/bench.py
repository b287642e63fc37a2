"""Benchmark a jitted JAX function: compile time and steady-state run time, measured separately.

Why your numbers looked wrong:

* The first call of a ``jax.jit`` function traces and compiles it for the argument shapes/dtypes,
  so it is much slower than later calls. Compilation must be timed on its own, not averaged in.
* JAX dispatches asynchronously: a call returns as soon as the work is *enqueued*, before the result
  is computed. ``time.time()`` around the call alone measures the dispatch, which is why JAX looked
  hundreds of times faster than NumPy. Every timed call must end with ``jax.block_until_ready``.
* ``time.time()`` is a wall clock with coarse resolution and can jump; use ``time.perf_counter()``.
* One run is noisy: report the median over several runs.

Usage::

    import jax, jax.numpy as jnp
    from bench import benchmark

    f = jax.jit(lambda x: jnp.tanh(x @ x).sum())
    x = jnp.ones((1024, 1024))
    print(benchmark(f, x, n_iter=20))
    # {'compile_seconds': ..., 'run_seconds': ...}
"""

from __future__ import annotations

import statistics
import time

import jax


def benchmark(fn, *args, n_iter: int = 10) -> dict:
    """Time compilation and the steady-state call of a jitted function separately.

    Args:
        fn: a function wrapped in ``jax.jit`` that has not been called with these argument shapes yet.
        *args: the arguments to call it with.
        n_iter: the number of timed calls (at least 1).

    Returns:
        ``{"compile_seconds": float, "run_seconds": float}``: the time to trace, lower and compile
        ``fn`` for ``args``, and the median wall time of one call of the compiled program over
        ``n_iter`` calls, each timed until its result is computed (``jax.block_until_ready``).
    """
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}")

    # Make sure the inputs themselves are materialised, so that no pending work producing them is
    # counted in the first timed region.
    jax.block_until_ready(args)

    # 1. Compile ahead of time: tracing + lowering + XLA compilation, and nothing else.
    start = time.perf_counter()
    compiled = fn.lower(*args).compile()
    compile_seconds = time.perf_counter() - start

    # 2. Warm-up call (not timed): first-execution effects such as buffer allocation.
    jax.block_until_ready(compiled(*args))

    # 3. Steady state: each call is timed until its result is actually computed.
    times = []
    for _ in range(n_iter):
        start = time.perf_counter()
        out = compiled(*args)
        jax.block_until_ready(out)
        times.append(time.perf_counter() - start)

    return {
        "compile_seconds": float(compile_seconds),
        "run_seconds": float(statistics.median(times)),
    }


if __name__ == "__main__":
    import jax.numpy as jnp

    @jax.jit
    def layers(x):
        for _ in range(10):
            x = jnp.tanh(x @ x)
        return x

    x = jax.random.normal(jax.random.key(0), (512, 512))
    result = benchmark(layers, x, n_iter=20)
    print(
        f"compile {result['compile_seconds'] * 1e3:.1f} ms, "
        f"run median {result['run_seconds'] * 1e3:.3f} ms "
        f"(backend {jax.default_backend()}, jax {jax.__version__})"
    )
