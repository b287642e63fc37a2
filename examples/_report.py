# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Shared reporting for the examples: a results table and the stamp that says where numbers came from.

Every example prints its measured results through `print_results`, so a reader (and the test suite)
always sees the same shape of output: a title, a table, and the hardware and library versions.
Plain text, and nothing beyond the standard library and JAX, so that it runs wherever JAX does.
`requirements_of(__file__)` wraps an example's imports so that a missing package ends the run with one
line naming the pinned requirement from the example's PEP 723 header (read by `scripts/_cli.py`).
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent / "scripts"))  # the plugin's (or export's) scripts/
from _cli import missing_dependency  # noqa: E402 - standard library only

HELP_FLAGS = {"-h", "--help"}

_LIBRARIES = ("jax", "jaxlib", "flax", "optax", "orbax-checkpoint", "numpyro")


@contextmanager
def requirements_of(path: str) -> Iterator[None]:
    """Around an example's imports: a missing dependency becomes one line naming what to install.

    Run as a program, the example then exits with that line (status 1), or with `--help` prints its
    description and the line (status 0). Imported, it raises ModuleNotFoundError with that message.
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        message = missing_dependency(exc, Path(path))
        main = sys.modules["__main__"]
        if message is None:
            raise
        if getattr(main, "__file__", None) != path:
            raise ModuleNotFoundError(message, name=exc.name) from exc
        if HELP_FLAGS & set(sys.argv[1:]):
            print(f"usage: python {Path(path).name} [options]\n\n{main.__doc__}\nThe options are listed once the"
                  f" dependencies are installed: {message}")
            sys.exit(0)
        print(f"error: {message}", file=sys.stderr)
        sys.exit(1)


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
