# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Worked example of the jax-optimization workflow: a per-example Python loop made fast with jit + vmap.

`slow_predict` runs a small two-layer classifier over a batch by looping over the examples in Python,
the way code often looks before anyone measures it: every example dispatches its handful of small
operations one by one (indexing, two matmuls, adds, tanh, log_softmax), so the batch costs
`size` x ~8 dispatches and the CPU spends its time in Python and dispatch, not in arithmetic.

`fast_predict` is the same per-example function, vectorised over the batch with `jax.vmap` and compiled
once with `jax.jit`: one dispatch per batch, and XLA fuses the elementwise work.

The script checks that the two agree within a float32 tolerance, times both the way a valid benchmark
must (warm-up call, compile time measured apart from run time, `block_until_ready`, median and spread of
`--repeats` runs), asserts that the fast version is faster, and prints the results with the hardware and
library versions.

    python examples/optimization_workflow.py                 # defaults: --size 256 --repeats 5
    python examples/optimization_workflow.py --size 64 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _report import print_results  # noqa: E402 - needs the path above when imported from elsewhere

Params = tuple[jax.Array, jax.Array, jax.Array, jax.Array]

FEATURES, HIDDEN, CLASSES = 32, 64, 10
RTOL, ATOL = 1e-5, 1e-5


def init_params(key: jax.Array, features: int = FEATURES, hidden: int = HIDDEN, classes: int = CLASSES) -> Params:
    """Weights and biases of a features -> hidden -> classes classifier."""
    k1, k2 = jax.random.split(key)
    w1 = jax.random.normal(k1, (features, hidden)) / features**0.5
    w2 = jax.random.normal(k2, (hidden, classes)) / hidden**0.5
    return w1, jnp.zeros(hidden), w2, jnp.zeros(classes)


def make_inputs(size: int, seed: int = 0) -> tuple[Params, jax.Array]:
    """Parameters and a batch of `size` feature vectors."""
    params_key, data_key = jax.random.split(jax.random.key(seed))
    return init_params(params_key), jax.random.normal(data_key, (size, FEATURES))


def predict_one(params: Params, x: jax.Array) -> jax.Array:
    """Log-probabilities of the classes for ONE example `x` of shape (features,)."""
    w1, b1, w2, b2 = params
    hidden = jnp.tanh(x @ w1 + b1)
    return jax.nn.log_softmax(hidden @ w2 + b2)


def slow_predict(params: Params, xs: jax.Array) -> jax.Array:
    """Baseline: a Python loop that dispatches every example's small ops one by one."""
    return jnp.stack([predict_one(params, xs[i]) for i in range(xs.shape[0])])


# The change: vectorise the per-example function over axis 0 of `xs` and compile the whole batch once.
fast_predict = jax.jit(jax.vmap(predict_one, in_axes=(None, 0)))


@dataclass(frozen=True)
class Timing:
    """Wall-clock seconds of one function: the warm-up call (excluded) and the steady-state runs."""

    warmup_s: float
    median_s: float
    min_s: float
    max_s: float


def _timed_call(fn: Callable[..., jax.Array], *args: object) -> tuple[jax.Array, float]:
    start = time.perf_counter()
    out = jax.block_until_ready(fn(*args))
    return out, time.perf_counter() - start


def measure(fn: Callable[..., jax.Array], *args: object, repeats: int) -> tuple[jax.Array, Timing]:
    """Call `fn(*args)` once to warm up, then time `repeats` runs; return the last output and the timing."""
    _, warmup = _timed_call(fn, *args)
    outputs, runs = zip(*(_timed_call(fn, *args) for _ in range(repeats)))
    return outputs[-1], Timing(warmup, statistics.median(runs), min(runs), max(runs))


def compile_ahead(jitted: Callable[..., jax.Array], *args: object) -> tuple[Callable[..., jax.Array], float]:
    """Lower and compile a `jax.jit` function for `args`; return the executable and the seconds it took.

    Compilation is cached per function, so only the first call in a process measures a real compile.
    """
    start = time.perf_counter()
    compiled = jitted.lower(*args).compile()
    return compiled, time.perf_counter() - start


def check_close(slow: jax.Array, fast: jax.Array) -> float:
    """Raise unless the outputs agree within RTOL/ATOL; return their largest absolute difference."""
    assert slow.shape == fast.shape, (slow.shape, fast.shape)
    assert jnp.allclose(fast, slow, rtol=RTOL, atol=ATOL), "fast_predict disagrees with slow_predict"
    return float(jnp.max(jnp.abs(fast - slow)))


@dataclass(frozen=True)
class Comparison:
    """The outcome of one run of the worked example."""

    size: int
    repeats: int
    max_abs_diff: float
    fast_compile_s: float
    slow: Timing
    fast: Timing

    @property
    def ratio(self) -> float:
        """Speedup: median slow time over median fast time, both measured in this run."""
        return self.slow.median_s / self.fast.median_s


def compare(size: int, repeats: int, seed: int = 0) -> Comparison:
    """Time the slow and the fast version on the same inputs, then check that their outputs agree."""
    params, xs = make_inputs(size, seed)
    slow_out, slow = measure(slow_predict, params, xs, repeats=repeats)
    compiled, compile_s = compile_ahead(fast_predict, params, xs)
    fast_out, fast = measure(compiled, params, xs, repeats=repeats)
    return Comparison(size, repeats, check_close(slow_out, fast_out), compile_s, slow, fast)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _row(name: str, compile_ms: str, timing: Timing) -> tuple[str, ...]:
    spread = f"{_ms(timing.min_s)}-{_ms(timing.max_s)}"
    return name, compile_ms, _ms(timing.warmup_s), _ms(timing.median_s), spread


def report(result: Comparison) -> None:
    """Print the results table and the hardware/version stamp."""
    rows = [
        _row("slow_predict (Python loop)", "- (op by op)", result.slow),
        _row("fast_predict (jit + vmap)", _ms(result.fast_compile_s), result.fast),
        ("speedup (median slow / median fast)", "", "", f"{result.ratio:.1f}x", ""),
    ]
    print_results(
        f"Worked example: batch of {result.size}, {result.repeats} repeats, "
        f"max |fast - slow| = {result.max_abs_diff:.2e}",
        ["version", "compile ms", "warm-up ms", "median ms", "min-max ms"],
        rows,
    )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256, help="examples in the batch (default 256)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs after the first call (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed for parameters and inputs")
    args = parser.parse_args(argv)
    if args.size < 1 or args.repeats < 1:
        parser.error("--size and --repeats must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> Comparison:
    args = parse_args(argv)
    result = compare(args.size, args.repeats, args.seed)
    report(result)
    assert result.ratio > 1, f"fast_predict is not faster: ratio {result.ratio:.2f}"
    return result


if __name__ == "__main__":
    main()
