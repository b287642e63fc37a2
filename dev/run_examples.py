"""Run every example in examples/ on the CPU with 8 virtual devices and print a pass/fail line for each.

Each example asserts its own claims and prints its measured results table; this runner shows that
output and ends with one line per example and a total. Exit status is 0 only if every example passed.

    python dev/run_examples.py                 # all examples
    python dev/run_examples.py remat_memory    # only those whose name contains a given word
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from jaxpro.repo import REPO, examples

DEVICE_FLAGS = "--xla_force_host_platform_device_count=8"


@dataclass(frozen=True)
class ExampleResult:
    name: str
    returncode: int
    seconds: float
    output: str

    @property
    def passed(self) -> bool:
        return self.returncode == 0


def run_example(path: Path, args: list[str] | None = None, timeout: float = 300) -> ExampleResult:
    """Run one example with its small CPU defaults in a fresh interpreter."""
    env = {**os.environ, "XLA_FLAGS": f"{os.environ.get('XLA_FLAGS', '')} {DEVICE_FLAGS}".strip()}
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, str(path), *(args or [])],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout,
        )
        returncode, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        returncode, output = -1, f"{expired.stdout or ''}\ntimed out after {timeout:.0f} s"
    return ExampleResult(path.stem, returncode, time.perf_counter() - start, output)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("filters", nargs="*", help="run only examples whose file name contains one of these")
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed per example (default 300)")
    options = parser.parse_args()

    paths = examples(options.filters)
    if not paths:
        print(f"error: no example matches {options.filters}", file=sys.stderr)
        return 2
    results = []
    for path in paths:
        print(f"=== {path.relative_to(REPO)}", flush=True)
        result = run_example(path, timeout=options.timeout)
        print(result.output.rstrip(), flush=True)
        results.append(result)

    print("\n=== summary")
    for result in results:
        print(f"{'PASS' if result.passed else 'FAIL'}  {result.name:<28} {result.seconds:6.1f} s")
    failed = sum(not r.passed for r in results)
    print(f"examples: {len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
