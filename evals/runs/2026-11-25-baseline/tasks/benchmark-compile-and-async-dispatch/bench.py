"""Honest timing of jitted JAX functions.

Why your numbers looked wrong:

* The first call of a ``jax.jit`` function traces the Python function and compiles it with XLA;
  that cost is paid once per new input shape/dtype, so the first call is always much slower.
* JAX dispatches work asynchronously: ``f(x)`` returns as soon as the computation is *enqueued*,
  long before the result exists. ``time.time()`` around the call therefore measures only the
  dispatch overhead, which is why JAX looked "hundreds of times faster" than NumPy.

``benchmark`` below separates the two costs: it compiles ahead of time (``fn.lower(...).compile()``)
and times that, then times calls of the compiled executable, blocking on every result with
``jax.block_until_ready`` so the measured time includes the actual computation.
"""

from __future__ import annotations

import statistics
import time

import jax


def _block(tree):
    """Wait until every array in ``tree`` has been computed."""
    return jax.block_until_ready(tree)


def benchmark(fn, *args, n_iter: int = 10) -> dict:
    """Time compilation and steady-state execution of a jitted function.

    Args:
      fn: a function wrapped in ``jax.jit`` that has not yet been called with these argument shapes.
      *args: the arguments to call ``fn`` with.
      n_iter: number of timed calls of the compiled function.

    Returns:
      ``{"compile_seconds": float, "run_seconds": float}`` where ``compile_seconds`` is the time to
      trace, lower and compile ``fn`` for ``args`` and ``run_seconds`` is the median wall time of one
      call of the compiled function, each call measured until its result is ready.
    """
    if n_iter < 1:
        raise ValueError("n_iter must be >= 1")

    # Make sure the inputs themselves are materialised, so that pending work that produced them
    # is not billed to the function being measured.
    _block(args)

    # 1) Trace + lower + XLA-compile, timed on its own (no execution happens here).
    t0 = time.perf_counter()
    compiled = fn.lower(*args).compile()
    compile_seconds = time.perf_counter() - t0

    # The compiled executable takes only the non-static arguments. If fn was jitted with
    # static arguments, fall back to calling fn itself (its cache will hold the executable after
    # the warm-up call, so the timed calls still do no compilation).
    call = compiled
    try:
        _block(call(*args))  # warm-up: first execution (allocations, transfers, ...)
    except TypeError:
        call = fn
        _block(call(*args))  # warm-up; compiles into fn's own cache, not timed

    # 2) Steady state: time each call until its result is actually computed.
    times = []
    for _ in range(n_iter):
        t0 = time.perf_counter()
        out = call(*args)
        _block(out)
        times.append(time.perf_counter() - t0)

    return {
        "compile_seconds": float(compile_seconds),
        "run_seconds": float(statistics.median(times)),
    }


if __name__ == "__main__":  # small demonstration
    import jax.numpy as jnp

    @jax.jit
    def f(a, b):
        return jnp.tanh(a @ b).sum()

    a = jnp.ones((1024, 1024), jnp.float32)
    b = jnp.ones((1024, 1024), jnp.float32)
    print(benchmark(f, a, b, n_iter=20))
