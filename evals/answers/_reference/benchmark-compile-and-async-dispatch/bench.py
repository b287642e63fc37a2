"""Compile time apart, then the median of calls that each wait for their result."""

import statistics
import time

import jax


def benchmark(fn, *args, n_iter: int = 10) -> dict:
    """Time ahead-of-time compilation, then `n_iter` blocked calls of the compiled function."""
    start = time.perf_counter()
    compiled = fn.lower(*args).compile()
    compile_seconds = time.perf_counter() - start

    jax.block_until_ready(compiled(*args))  # warm-up, not timed
    runs = []
    for _ in range(n_iter):
        start = time.perf_counter()
        jax.block_until_ready(compiled(*args))
        runs.append(time.perf_counter() - start)
    return {"compile_seconds": compile_seconds, "run_seconds": statistics.median(runs)}
