"""Benchmark a jitted JAX function with compile time and steady-state run time kept apart.

Why your `time.time()` numbers were wrong
-----------------------------------------
1. **The first call traces and compiles.** A `jax.jit` function is traced and compiled by XLA the
   first time it sees a new set of argument shapes/dtypes. That one-off cost landed in your first
   measurement, which is why it was so much slower. Here it is measured on its own, ahead of time,
   with `fn.lower(*args).compile()`, and the timed calls use the compiled executable, so no timed
   call can include compilation.
2. **JAX dispatches asynchronously.** A call returns as soon as the work is *enqueued*; the result
   is filled in later. A timer around the bare call measures the dispatch (microseconds), not the
   computation, which is why JAX looked hundreds of times faster than NumPy. Every timed call here
   ends with `jax.block_until_ready(result)`, which waits until the whole output pytree is computed.
3. **One sample is noise.** We warm up once (untimed), then take `n_iter` samples and report the
   median, which is robust to the odd slow call.

`time.perf_counter()` is used instead of `time.time()`: it is monotonic and has the best available
resolution.

Example
-------
    import jax, jax.numpy as jnp
    from bench import benchmark

    f = jax.jit(lambda x: jnp.tanh(x @ x).sum())
    x = jax.random.normal(jax.random.key(0), (1024, 1024))
    print(benchmark(f, x, n_iter=20))
    # {'compile_seconds': ..., 'run_seconds': ...}

For a fair comparison with NumPy, time the NumPy version the same way (median of several calls;
NumPy is synchronous, so it needs no blocking) on the same inputs in the same process.
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

import jax
import numpy as np


def _to_device(x: Any) -> Any:
    """Move NumPy arrays to the default device once, so the timed calls do not include a host-to-device copy."""
    if isinstance(x, np.ndarray):
        return jax.device_put(x)
    return x


def _dynamic_args(compiled: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """The positional arguments the compiled executable takes.

    A `Compiled` object has the static arguments (`static_argnums`) baked in and takes only the
    traced ones. For the usual case (all arguments are arrays) this is just `args`.
    """
    try:
        n_dynamic = len(compiled.args_info[0])
    except Exception:  # pragma: no cover - defensive: fall back to passing everything
        return args
    if n_dynamic == len(args):
        return args
    arrays = tuple(a for a in args if isinstance(a, (jax.Array, np.ndarray, np.generic)))
    if len(arrays) != n_dynamic:
        raise TypeError(
            f"cannot tell which of the {len(args)} arguments are static "
            f"({n_dynamic} are traced); pass static arguments via functools.partial instead"
        )
    return arrays


def benchmark(fn: Callable[..., Any], *args: Any, n_iter: int = 10) -> dict:
    """Time `fn(*args)`: compile time and median steady-state time per call, separately.

    Args:
      fn: a function wrapped in `jax.jit`, not yet called with these argument shapes.
      *args: the arguments to call it with.
      n_iter: number of timed calls of the compiled function (the median is reported).

    Returns:
      {"compile_seconds": float, "run_seconds": float}:
        compile_seconds: wall time to trace, lower and compile `fn` for `args`;
        run_seconds: median wall time of one call of the compiled function, each call
          measured until its result is fully computed (`jax.block_until_ready`).
    """
    if n_iter < 1:
        raise ValueError(f"n_iter must be >= 1, got {n_iter}")
    if not hasattr(fn, "lower"):
        raise TypeError("fn must be wrapped in jax.jit (it needs a .lower method)")

    args = tuple(jax.tree.map(_to_device, a) for a in args)
    jax.block_until_ready(args)  # make sure inputs are on the device before any timing

    # 1. Trace + lower + XLA-compile, ahead of time. `.compile()` is synchronous, so the elapsed
    #    time is the full compilation cost and nothing else.
    start = time.perf_counter()
    compiled = fn.lower(*args).compile()
    compile_seconds = time.perf_counter() - start

    call_args = _dynamic_args(compiled, args)

    # 2. Warm-up call, not timed (first execution can include one-off allocations / transfers).
    jax.block_until_ready(compiled(*call_args))

    # 3. Steady state: each sample ends only when the result is ready, so it measures the work,
    #    not the asynchronous dispatch.
    samples = []
    for _ in range(n_iter):
        start = time.perf_counter()
        out = compiled(*call_args)
        jax.block_until_ready(out)
        samples.append(time.perf_counter() - start)

    return {
        "compile_seconds": float(compile_seconds),
        "run_seconds": float(statistics.median(samples)),
    }


if __name__ == "__main__":
    import jax.numpy as jnp

    def layers(x):
        for _ in range(10):
            x = jnp.tanh(x @ x)
        return x

    x = jax.random.normal(jax.random.key(0), (512, 512))
    result = benchmark(jax.jit(layers), x, n_iter=20)
    print(
        f"compile {result['compile_seconds'] * 1e3:.1f} ms, "
        f"run (median) {result['run_seconds'] * 1e3:.3f} ms"
    )
