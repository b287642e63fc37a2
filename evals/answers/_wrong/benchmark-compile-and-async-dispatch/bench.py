"""First call for compile time, then the median of timed calls; no call waits for its result."""

import statistics
import time


def benchmark(fn, *args, n_iter: int = 10) -> dict:
    """Time the first call (trace and compile), then `n_iter` more calls."""
    start = time.perf_counter()
    fn(*args)
    compile_seconds = time.perf_counter() - start

    runs = []
    for _ in range(n_iter):
        start = time.perf_counter()
        fn(*args)
        runs.append(time.perf_counter() - start)
    return {"compile_seconds": compile_seconds, "run_seconds": statistics.median(runs)}
