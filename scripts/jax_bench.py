# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Benchmark a JAX function with compile time kept apart from run time.

For `MODULE:FUNCTION` with example inputs, the tool lowers and compiles the function ahead of time
(`jax.jit(f).lower(*args)`, then `.compile()`) and reports those two times, then calls the compiled
executable `--warmup` times untimed and `--repeats` times timed, each call ending in
`jax.block_until_ready`, and reports the median, the interquartile range, min and max.
`--compare` times a second function on the same inputs in the same process, alternating the two
so that drifting machine load hits both alike, and reports median_a / median_b.

Given a `.py` file instead, it times the file's `bench_*` functions (no arguments) and its `test_*`
functions that take a pytest-benchmark style `benchmark` fixture.
"""

from __future__ import annotations

import inspect
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from _cli import (
    EXIT_CODES_HELP,
    INPUT_SPEC_HELP,
    CheckFailed,
    CliParser,
    UsageError,
    call_target,
    check_input_specs,
    compiled_args,
    environment,
    format_environment,
    load_callable,
    load_file,
    lower_and_compile,
    non_negative_int,
    parse_inputs,
    positive_int,
    print_json,
    print_table,
    run_cli,
    setup_host_devices,
    short_name,
)

EXAMPLES = """\
examples:
  python scripts/jax_bench.py mypkg.model:loss --input f32[1024,1024] --input f32[1024]
  python scripts/jax_bench.py model.py:attention --input bf16[8,128,64] --input 3 --repeats 50
  python scripts/jax_bench.py mypkg.ops:softmax_naive --input f32[512,512] \\
      --compare mypkg.ops:softmax_stable --check-equal --atol 1e-6 --json
  python scripts/jax_bench.py benchmarks/bench_ops.py          # bench_* and test_*(benchmark)
"""


def build_parser() -> CliParser:
    parser = CliParser(
        prog="jax_bench.py",
        description=__doc__,
        epilog="\n\n".join([EXAMPLES, INPUT_SPEC_HELP, EXIT_CODES_HELP]),
    )
    parser.add_argument(
        "target",
        help="MODULE:FUNCTION or PATH.py:FUNCTION to benchmark, or PATH.py whose bench_*/test_* functions to time",
    )
    parser.add_argument(
        "--input", "-i", action="append", default=[], metavar="SPEC",
        help="one positional argument, in order (repeat the flag): f32[1024,1024], i32[8], or a literal "
        "such as 3, which becomes a static argument",
    )
    parser.add_argument("--compare", metavar="TARGET", help="a second MODULE:FUNCTION to time on the same inputs")
    parser.add_argument(
        "--check-equal", action="store_true",
        help="with --compare: fail (exit 3) unless both results agree within --rtol/--atol",
    )
    parser.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance for --check-equal (default 1e-5)")
    parser.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance for --check-equal (default 1e-6)")
    parser.add_argument("--repeats", "-r", type=positive_int, default=20, help="timed samples per function (default 20)")
    parser.add_argument("--warmup", "-w", type=non_negative_int, default=2, help="untimed calls before timing (default 2)")
    parser.add_argument(
        "--number", "-n", type=positive_int, default=1,
        help="calls per sample, each blocked until ready; a sample is their mean (default 1)",
    )
    parser.add_argument("--filter", "-k", metavar="TEXT", help="file mode: only functions whose name contains TEXT")
    parser.add_argument(
        "--devices", type=positive_int, metavar="N",
        help="run on N virtual CPU devices (sets XLA_FLAGS=--xla_force_host_platform_device_count=N)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    return parser


# --- statistics ----------------------------------------------------------------------------------

def summarize(samples_s: Sequence[float]) -> dict[str, float]:
    """Median, quartiles, IQR, min, max and mean of timing samples, in milliseconds."""
    ms = sorted(s * 1e3 for s in samples_s)
    if len(ms) >= 2:
        q25, _, q75 = statistics.quantiles(ms, n=4, method="inclusive")
    else:
        q25 = q75 = ms[0]
    return {
        "median": statistics.median(ms), "q25": q25, "q75": q75, "iqr": q75 - q25,
        "min": ms[0], "max": ms[-1], "mean": statistics.fmean(ms),
    }


@dataclass
class Timer:
    """Times one zero-argument callable: untimed warm-up calls, then samples of `number` calls."""

    fn: Callable[[], Any]
    number: int
    samples: list[float] = field(default_factory=list)

    def warm_up(self, calls: int) -> Any:
        import jax

        result = None
        for _ in range(calls):
            result = jax.block_until_ready(self.fn())
        return result

    def sample(self) -> Any:
        import jax

        start = time.perf_counter()
        for _ in range(self.number):
            result = jax.block_until_ready(self.fn())
        self.samples.append((time.perf_counter() - start) / self.number)
        return result


# --- MODULE:FUNCTION mode ------------------------------------------------------------------------

@dataclass
class FunctionBench:
    """A compiled target and its timings."""

    name: str
    lower_s: float
    compile_s: float
    timer: Timer
    result: Any = None

    def report(self) -> dict[str, Any]:
        return {
            "target": self.name,
            "lower_ms": self.lower_s * 1e3,
            "compile_ms": self.compile_s * 1e3,
            "run_ms": summarize(self.timer.samples),
            "samples": len(self.timer.samples),
        }


def prepare(spec: str, fn: Callable[..., Any], args: Sequence[Any], number: int) -> FunctionBench:
    """AOT-compile `fn` for `args`; the timer calls the compiled executable."""
    _, compiled, lower_s, compile_s = lower_and_compile(fn, args, spec)
    dynamic = compiled_args(compiled, args)
    run = lambda: compiled(*dynamic)  # noqa: E731
    call_target(run, (), f"running {spec}")
    return FunctionBench(spec, lower_s, compile_s, Timer(run, number))


def run_benches(benches: Sequence[FunctionBench], warmup: int, repeats: int) -> None:
    """Warm every bench up, then take samples round-robin so load drift hits all of them alike."""
    for bench in benches:
        bench.result = bench.timer.warm_up(warmup)
    for _ in range(repeats):
        for bench in benches:
            bench.result = bench.timer.sample()


def compare_results(a: Any, b: Any, rtol: float, atol: float) -> dict[str, Any]:
    """Whether two result pytrees have the same structure and allclose leaves."""
    import jax
    import numpy as np

    leaves_a, tree_a = jax.tree.flatten(a)
    leaves_b, tree_b = jax.tree.flatten(b)
    if tree_a != tree_b:
        return {"equal": False, "reason": f"different result structure: {tree_a} vs {tree_b}"}
    worst = 0.0
    for x, y in zip(leaves_a, leaves_b):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape:
            return {"equal": False, "reason": f"different result shapes: {x.shape} vs {y.shape}"}
        if x.size:
            worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))))
        if not np.allclose(x, y, rtol=rtol, atol=atol):
            return {"equal": False, "max_abs_diff": worst, "reason": f"max |a - b| = {worst:.3g}"}
    return {"equal": True, "max_abs_diff": worst}


def bench_functions(args: Any) -> dict[str, Any]:
    """Time TARGET (and --compare); return the JSON-ready report."""
    check_input_specs(args.input)
    specs = [args.target] + ([args.compare] if args.compare else [])
    functions = [load_callable(spec) for spec in specs]
    inputs = parse_inputs(args.input)
    benches = [prepare(spec, fn, inputs, args.number) for spec, fn in zip(specs, functions)]
    run_benches(benches, args.warmup, args.repeats)
    report: dict[str, Any] = {
        "mode": "function",
        "inputs": args.input,
        "settings": {"warmup": args.warmup, "repeats": args.repeats, "number": args.number},
        "results": [bench.report() for bench in benches],
        "environment": environment(),
    }
    if args.compare:
        a, b = (r["run_ms"]["median"] for r in report["results"])
        report["ratio"] = a / b
    if args.check_equal:
        report["check_equal"] = {
            "rtol": args.rtol, "atol": args.atol,
            **compare_results(benches[0].result, benches[1].result, args.rtol, args.atol),
        }
    return report


# --- file mode -----------------------------------------------------------------------------------

class StandInBenchmark:
    """A small stand-in for pytest-benchmark's `benchmark` fixture: `benchmark(fn, *args)`.

    It warms `fn` up, times it, blocks on every result and returns the last result, as the
    fixture does. `benchmark.pedantic(fn, args=..., kwargs=..., rounds=..., iterations=...)` works too.
    """

    def __init__(self, warmup: int, repeats: int, number: int) -> None:
        self.warmup, self.repeats, self.number = warmup, repeats, number
        self.first_call_s: float | None = None
        self.samples: list[float] = []

    def __call__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return self._time(lambda: fn(*args, **kwargs), self.repeats, self.number)

    def pedantic(
        self, fn: Callable[..., Any], args: Sequence[Any] = (), kwargs: dict[str, Any] | None = None,
        rounds: int = 1, iterations: int = 1, **_: Any,
    ) -> Any:
        return self._time(lambda: fn(*args, **(kwargs or {})), rounds, iterations)

    def _time(self, call: Callable[[], Any], repeats: int, number: int) -> Any:
        import jax

        start = time.perf_counter()
        result = jax.block_until_ready(call())
        self.first_call_s = time.perf_counter() - start
        timer = Timer(call, number)
        timer.warm_up(self.warmup)
        for _ in range(repeats):
            result = timer.sample()
        self.samples = timer.samples
        return result


def collect_file_benches(module: Any, name_filter: str | None) -> list[tuple[str, Callable[..., Any]]]:
    """`bench_*` functions without required parameters and `test_*` functions taking `benchmark`."""
    found = []
    for name, fn in vars(module).items():
        if not inspect.isfunction(fn) or fn.__module__ != module.__name__:
            continue
        if name_filter and name_filter not in name:
            continue
        if name.startswith("bench_") or (name.startswith("test_") and "benchmark" in _params(fn)):
            found.append((name, fn))
    return found


def _params(fn: Callable[..., Any]) -> list[str]:
    return [
        p.name for p in inspect.signature(fn).parameters.values()
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def bench_one_file_function(name: str, fn: Callable[..., Any], args: Any) -> dict[str, Any]:
    """Time one function of a benchmark file; a function needing other fixtures is skipped."""
    needed = _params(fn)
    extra = [p for p in needed if p != "benchmark"]
    if extra:
        return {"name": name, "skipped": f"needs fixtures this tool does not provide: {', '.join(extra)}"}
    bench = StandInBenchmark(args.warmup, args.repeats, args.number)
    if "benchmark" in needed:
        call_target(fn, (bench,), name)
        if not bench.samples:
            return {"name": name, "skipped": "never called benchmark(...)"}
    else:
        bench(lambda: call_target(fn, (), name))
    assert bench.first_call_s is not None
    return {
        "name": name,
        "first_call_ms": bench.first_call_s * 1e3,
        "run_ms": summarize(bench.samples),
        "samples": len(bench.samples),
    }


def bench_file(args: Any) -> dict[str, Any]:
    """Time every benchmark function of the file TARGET."""
    if args.input or args.compare:
        raise UsageError("--input and --compare need a MODULE:FUNCTION target, not a file")
    module = load_file(args.target)
    functions = collect_file_benches(module, args.filter)
    if not functions:
        raise UsageError(f"{args.target} has no bench_* functions and no test_* functions taking `benchmark`")
    return {
        "mode": "file",
        "file": args.target,
        "settings": {"warmup": args.warmup, "repeats": args.repeats, "number": args.number},
        "results": [bench_one_file_function(name, fn, args) for name, fn in functions],
        "environment": environment(),
    }


# --- output --------------------------------------------------------------------------------------

def print_function_report(report: dict[str, Any]) -> None:
    rows = [
        [short_name(r["target"]), r["lower_ms"], r["compile_ms"], r["run_ms"]["median"], r["run_ms"]["iqr"],
         r["run_ms"]["min"], r["run_ms"]["max"], r["samples"]]
        for r in report["results"]
    ]
    columns = ["function", "lower ms", "compile ms", "median ms", "IQR ms", "min ms", "max ms", "samples"]
    print_table(f"jax_bench: inputs {' '.join(report['inputs']) or '(none)'}", columns, rows)
    if "ratio" in report:
        a, b = (short_name(r["target"]) for r in report["results"])
        print(f"ratio median({a}) / median({b}) = {report['ratio']:.3g} (same process, interleaved samples)")
    if "check_equal" in report:
        check = report["check_equal"]
        verdict = "equal" if check["equal"] else f"DIFFERENT ({check['reason']})"
        print(f"results: {verdict} at rtol={check['rtol']:g}, atol={check['atol']:g}")
    print(format_environment(report["environment"]))


def print_file_report(report: dict[str, Any]) -> None:
    rows = []
    for r in report["results"]:
        if "skipped" in r:
            rows.append([r["name"], "skipped: " + r["skipped"], "", "", "", "", ""])
            continue
        run = r["run_ms"]
        rows.append([r["name"], r["first_call_ms"], run["median"], run["iqr"], run["min"], run["max"], r["samples"]])
    columns = ["function", "first call ms", "median ms", "IQR ms", "min ms", "max ms", "samples"]
    print_table(f"jax_bench: {report['file']}", columns, rows)
    print("first call includes tracing and compilation; the other columns exclude it")
    print(format_environment(report["environment"]))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.devices:
        setup_host_devices(args.devices)
    is_file = args.target.endswith(".py")
    if args.check_equal and not args.compare:
        raise UsageError("--check-equal needs --compare TARGET")
    report = bench_file(args) if is_file else bench_functions(args)
    if args.json:
        print_json(report)
    else:
        (print_file_report if is_file else print_function_report)(report)
    check = report.get("check_equal")
    if check and not check["equal"]:
        raise CheckFailed(f"results differ: {check['reason']} (rtol={args.rtol:g}, atol={args.atol:g})")
    return 0


if __name__ == "__main__":
    run_cli(main)
