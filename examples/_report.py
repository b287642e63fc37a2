# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Shared reporting for the examples: a results table and the stamp that says where numbers came from.

Every example prints its measured results through `print_results`, so a reader (and the test suite)
always sees the same shape of output: a title, a table, and the hardware and library versions.
Plain text, and nothing beyond the standard library and JAX, so that it runs wherever JAX does.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
from collections.abc import Sequence

_LIBRARIES = ("jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "numpyro")


def environment_stamp() -> str:
    """One line naming the hardware and the installed library versions, e.g. for a results file."""
    import jax  # imported here so that callers can set XLA_FLAGS first

    versions = []
    for name in _LIBRARIES:
        try:
            versions.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    cpu = _cpu_model()
    devices = f"{jax.device_count()} x {jax.devices()[0].platform}"
    return (
        f"{platform.machine()} {cpu}, {os.cpu_count()} cores, devices {devices}; "
        f"Python {platform.python_version()}; " + ", ".join(versions)
    )


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def print_results(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a results table followed by the environment stamp."""
    cells = [[_format(cell) for cell in row] for row in rows]
    widths = [max([len(column), *(len(row[i]) for row in cells)]) for i, column in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(value.ljust(width) for value, width in zip(values, widths)).rstrip()

    print("\n".join([title, line(columns), line(["-" * w for w in widths]), *map(line, cells)]))
    print(f"measured on: {environment_stamp()}", flush=True)


def _format(cell: object) -> str:
    if isinstance(cell, float):
        return f"{cell:.4g}"
    return str(cell)
