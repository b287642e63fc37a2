# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Shared plumbing for the command-line tools in `scripts/`.

Every tool is a black box for an assistant: it takes a `module:function` (or a file), example inputs
written as shape-dtype specs such as `f32[8,128]`, and prints a table or JSON. This module holds what
they all need, so that each tool reads as its own job:

- `CliError` / `UsageError` and `run_cli(main)`: bad input becomes one `error: ...` line on stderr and
  a documented exit code, never a traceback.
- `load_callable("pkg.mod:fn")` / `load_callable("path/to/file.py:fn")`: import the target.
- `parse_array_spec("f32[8,128]")` / `parse_inputs([...])`: deterministic example arrays
  (`check_input_specs` validates specs without importing JAX).
- `lower_and_compile(fn, args, name)`: `jax.jit` (literals static) + AOT lower/compile, timed.
- `setup_host_devices(8)`: virtual CPU devices, set up before JAX is imported.
- `CliParser`, `print_table`, `print_json`, `environment`: consistent `--help`, plain-text tables, JSON,
  and the hardware/version stamp that every measured number carries.
- `script_metadata(path)` / `missing_dependency(exc, path)`: a file's PEP 723 header, and the one line
  that names the pinned requirement to install when an import fails (the examples use it too).

The tools need only JAX (checkpoint_manager.py and pytree_visualizer.py --checkpoint also need
orbax-checkpoint); their PEP 723 headers say so.

JAX is imported lazily inside the functions that need it, so that `setup_host_devices` can still set
`XLA_FLAGS` after the arguments are parsed.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import os
import re
import sys
import tomllib
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_CHECK_FAILED = 3
EXIT_INTERRUPTED = 130

TRACEBACK_ENV = "JAX_PRO_TRACEBACK"

# The PEP 723 reference regex: a `# /// script` block of comment lines closed by `# ///`.
PEP723_BLOCK = re.compile(r"(?m)^# /// (?P<type>[a-zA-Z0-9-]+)$\s(?P<content>(^#(| .*)$\s)+)^# ///$")
# Top-level import name -> the distribution that provides it, directly or as one of its dependencies.
PROVIDED_BY = {
    "jax": "jax", "jaxlib": "jax", "numpy": "jax",
    "flax": "flax", "optax": "optax", "numpyro": "numpyro",
    "orbax": "orbax-checkpoint", "absl": "orbax-checkpoint", "libcst": "libcst",
}

EXIT_CODES_HELP = f"""\
exit codes:
  {EXIT_OK}    success
  {EXIT_ERROR}    runtime error (the target could not be imported, traced, compiled or run)
  {EXIT_USAGE}    usage error (unknown flag, malformed MODULE:FUNCTION or input spec, missing file)
  {EXIT_CHECK_FAILED}    a check requested on the command line failed
  {EXIT_INTERRUPTED}  interrupted (Ctrl-C)
Errors are one line on stderr starting with "error:". Set {TRACEBACK_ENV}=1 to see the traceback."""


class CliError(Exception):
    """An error the user can fix; printed as one `error: ...` line, never as a traceback."""

    exit_code = EXIT_ERROR


class UsageError(CliError):
    """The command line itself is wrong (bad flag, malformed spec, missing file): exit code 2."""

    exit_code = EXIT_USAGE


class CheckFailed(CliError):
    """A check asked for on the command line failed (e.g. results differ, too many compilations)."""

    exit_code = EXIT_CHECK_FAILED


class CliParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are `UsageError`s and whose help keeps its line breaks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        if kwargs.get("epilog"):  # examples name this folder, so they run from the user's project as printed
            kwargs["epilog"] = kwargs["epilog"].replace("python scripts/", f"python {Path(__file__).resolve().parent}/")
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def script_metadata(path: Path) -> dict[str, Any]:
    """The inline metadata of a script, parsed as PEP 723 says; ValueError unless there is exactly one."""
    blocks = [m for m in PEP723_BLOCK.finditer(path.read_text(encoding="utf-8")) if m.group("type") == "script"]
    if len(blocks) != 1:
        raise ValueError(f"{path.name}: expected one '# /// script' block, found {len(blocks)}")
    content = "".join(line[2:] if line.startswith("# ") else line[1:]
                      for line in blocks[0].group("content").splitlines(keepends=True))
    return tomllib.loads(content)


def requirement_name(line: str) -> str:
    """The distribution a requirement line names: `"orbax-checkpoint==0.12.8"` -> `orbax-checkpoint`."""
    return re.split(r"[=<>!~ \[;]", line, maxsplit=1)[0].lower()


def missing_dependency(exc: ModuleNotFoundError, path: Path) -> str | None:
    """One line naming the pinned requirement from `path`'s header that provides the missing module.

    None when no declared dependency provides it (the import failed for another reason, e.g. in the
    user's own code): the caller reports it as it is.
    """
    distribution = PROVIDED_BY.get((exc.name or "").partition(".")[0])
    pinned = [line for line in script_metadata(path)["dependencies"] if requirement_name(line) == distribution]
    if not pinned:
        return None
    return f"{path.name} needs {distribution} ({exc}); install it with: pip install '{pinned[0]}'"


def run_cli(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> NoReturn:
    """Run `main(argv)` and exit with its return code; turn every error into one `error:` line."""
    try:
        code = main(argv)
    except CliError as exc:
        _fail(str(exc), exc.exit_code)
    except ModuleNotFoundError as exc:  # a dependency of this tool is not installed: name what to install
        script = Path(sys.modules["__main__"].__file__ or "")
        message = missing_dependency(exc, script) if script.suffix == ".py" else None
        _fail(message or f"unexpected ModuleNotFoundError: {exc}", EXIT_ERROR)
    except KeyboardInterrupt:
        _fail("interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:  # e.g. `tool.py --json | head`: the reader left, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # a bug in a tool or an unexpected library error: still one line
        _fail(f"unexpected {type(exc).__name__}: {first_line(str(exc))}", EXIT_ERROR)
    sys.exit(EXIT_OK if code is None else code)


def _fail(message: str, code: int) -> NoReturn:
    if os.environ.get(TRACEBACK_ENV):
        traceback.print_exc()
    print(f"error: {message}", file=sys.stderr)
    sys.exit(code)


def first_line(text: str) -> str:
    """The first non-empty line of `text` (JAX error messages can run to many lines)."""
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return text.strip()


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _int_at_least(text, 1)


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _int_at_least(text, 0)


def _int_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low:
        raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
    return value


# --- devices -------------------------------------------------------------------------------------

def setup_host_devices(count: int) -> None:
    """Ask XLA for `count` virtual CPU devices. Must run before JAX initialises its backends."""
    flag = f"--xla_force_host_platform_device_count={count}"
    flags = os.environ.get("XLA_FLAGS", "")
    flags = re.sub(r"--xla_force_host_platform_device_count=\d+", "", flags).strip()
    os.environ["XLA_FLAGS"] = f"{flags} {flag}".strip()
    if "jax" in sys.modules:
        import jax

        if jax.device_count() != count and jax.devices()[0].platform == "cpu":
            raise CliError(f"JAX was initialised before --devices {count} could take effect")


# --- loading targets -----------------------------------------------------------------------------

def split_target(spec: str) -> tuple[str, str]:
    """Split `module:attr` or `file.py:attr`; raise `UsageError` when there is no `:attr` part."""
    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr:
        raise UsageError(
            f"target {spec!r} must look like MODULE:FUNCTION (e.g. mypkg.model:loss) "
            "or PATH.py:FUNCTION (e.g. train.py:step)"
        )
    return where, attr


def short_name(spec: str) -> str:
    """`path/to/file.py:fn` -> `file.py:fn` for tables; dotted module names are kept."""
    where, _, attr = spec.rpartition(":")
    return f"{Path(where).name}:{attr}" if where.endswith(".py") else spec


def load_module(where: str) -> ModuleType:
    """Import a dotted module name (from the current directory or sys.path) or a `.py` file path."""
    if where.endswith(".py") or os.sep in where or "/" in where:
        return load_file(where)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(where)
    except ModuleNotFoundError as exc:
        if exc.name and (where == exc.name or where.startswith(exc.name + ".")):
            raise UsageError(
                f"unknown module {where!r}: not importable from the current directory or sys.path "
                "(pass a file instead: path/to/file.py:function)"
            ) from exc
        raise CliError(f"importing {where!r} failed: {exc}") from exc
    except Exception as exc:
        raise CliError(f"importing {where!r} raised {type(exc).__name__}: {first_line(str(exc))}") from exc


def load_file(path: str) -> ModuleType:
    """Import a Python file as a module; its directory goes on sys.path so sibling imports work."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"no such file: {path}")
    name = "_cli_target_" + re.sub(r"\W", "_", str(file.resolve().with_suffix("")))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    parent = str(file.resolve().parent)
    if parent not in sys.path:
        sys.path.insert(0, parent)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise CliError(f"importing {path} raised {type(exc).__name__}: {first_line(str(exc))}") from exc
    return module


def load_callable(spec: str) -> Callable[..., Any]:
    """Load `pkg.module:function` or `path/to/file.py:function` (dotted attributes allowed)."""
    where, attr = split_target(spec)
    obj: Any = load_module(where)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{where!r} has no attribute {attr!r}{_suggest(obj, part)}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UsageError(f"{spec!r} is not callable: it is a {type(obj).__name__} value")
    return obj


def _suggest(obj: Any, missing: str) -> str:
    import difflib

    names = [n for n in dir(obj) if not n.startswith("_") and callable(getattr(obj, n, None))]
    close = difflib.get_close_matches(missing, names, n=3)
    return f" (did you mean: {', '.join(close)}?)" if close else ""


# --- input specs ---------------------------------------------------------------------------------

DTYPES: dict[str, str] = {
    "bool": "bool", "pred": "bool",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
    "c64": "complex64", "c128": "complex128",
}
_SHORT_NAMES = {v: k for k, v in DTYPES.items() if k != "pred"}
_ARRAY_SPEC = re.compile(r"^\s*([a-z][a-z0-9]*)\s*\[([^\]]*)\]\s*$")
_LOOKS_LIKE_ARRAY = re.compile(r"^\s*[a-z][a-z0-9]*\s*\[")

INPUT_SPEC_HELP = f"""\
input specs:
  DTYPE[DIMS]   an array filled deterministically from jax.random.key(0), e.g. f32[1024,1024],
                bf16[8,128], i32[16], bool[4], f32[] (a scalar). DTYPE is one of
                {", ".join(k for k in DTYPES if k != "pred")}.
  LITERAL       any other spec is read as a Python literal and passed as is, e.g. 3, 0.5, True,
                \"relu\", (2, 2)."""


def parse_shape_dtype(spec: str) -> tuple[tuple[int, ...], str]:
    """Parse `f32[8,128]` into `((8, 128), "float32")`; raise `UsageError` when malformed."""
    match = _ARRAY_SPEC.match(spec)
    if not match:
        raise UsageError(f"malformed input spec {spec!r}: expected DTYPE[DIMS] such as f32[8,128]")
    short, dims = match.groups()
    if short not in DTYPES:
        raise UsageError(f"unknown dtype {short!r} in input spec {spec!r}; use one of {', '.join(DTYPES)}")
    parts = [d.strip() for d in dims.split(",")] if dims.strip() else []
    if not all(re.fullmatch(r"\d+", d) for d in parts):
        raise UsageError(f"malformed shape in input spec {spec!r}: dimensions must be non-negative integers")
    return tuple(int(d) for d in parts), DTYPES[short]


def parse_array_spec(spec: str, index: int = 0) -> Any:
    """Make the example array for `spec`, filled from `fold_in(jax.random.key(0), index)`."""
    shape, dtype = parse_shape_dtype(spec)
    return _example_array(shape, dtype, index)


def _example_array(shape: tuple[int, ...], dtype: str, index: int) -> Any:
    import jax
    import jax.numpy as jnp

    key = jax.random.fold_in(jax.random.key(0), index)
    kind = jnp.dtype(dtype).kind
    if kind == "b":
        return jax.random.bernoulli(key, 0.5, shape)
    if kind in "iu":
        return jax.random.randint(key, shape, 0, 10).astype(dtype)
    if dtype in ("float64", "complex128") and not jax.config.jax_enable_x64:
        raise UsageError(f"{dtype} needs 64-bit mode: set JAX_ENABLE_X64=1")
    return jax.random.normal(key, shape, dtype)


def parse_input(spec: str, index: int = 0) -> Any:
    """One input: an array for `DTYPE[DIMS]`, otherwise a Python literal (`3`, `True`, `"relu"`)."""
    if _LOOKS_LIKE_ARRAY.match(spec):
        return parse_array_spec(spec, index)
    try:
        return ast.literal_eval(spec)
    except (ValueError, SyntaxError) as exc:
        raise UsageError(
            f"malformed input spec {spec!r}: expected DTYPE[DIMS] such as f32[8,128], or a Python literal"
        ) from exc


def check_input_specs(specs: Sequence[str]) -> None:
    """Raise `UsageError` for the first malformed spec, without importing JAX or making arrays."""
    for spec in specs:
        if _LOOKS_LIKE_ARRAY.match(spec):
            parse_shape_dtype(spec)
        else:
            parse_input(spec)


def parse_inputs(specs: Sequence[str]) -> list[Any]:
    """Turn a list of input specs into positional arguments; the i-th array uses key index i."""
    return [parse_input(spec, i) for i, spec in enumerate(specs)]


def split_specs(text: str) -> list[str]:
    """Split `"f32[8] 3 (1, 2) 'a b'"` on whitespace outside brackets and quotes."""
    parts, current, depth, quote = [], "", 0, ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char.isspace() and depth == 0:
            if current:
                parts.append(current)
            current = ""
            continue
        current += char
    if quote or depth:
        raise UsageError(f"malformed input specs {text!r}: unbalanced brackets or quotes")
    return parts + ([current] if current else [])


def describe_value(value: Any) -> str:
    """Short spec-like description: `f32[8,128]` for arrays, `repr` for anything else."""
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is None or dtype is None:
        return repr(value)
    short = _SHORT_NAMES.get(str(dtype), str(dtype))
    return f"{short}[{','.join(str(d) for d in shape)}]"


def call_target(fn: Callable[..., Any], args: Sequence[Any], name: str) -> Any:
    """Call user code; turn its exception into a one-line `CliError` that names the target."""
    try:
        return fn(*args)
    except CliError:
        raise
    except Exception as exc:
        inputs = ", ".join(describe_value(a) for a in args)
        raise CliError(f"{name}({inputs}) raised {type(exc).__name__}: {first_line(str(exc))}") from exc


# --- jit and AOT compilation --------------------------------------------------------------------

def is_array(value: Any) -> bool:
    """True for anything with a shape and a dtype (jax and numpy arrays)."""
    return hasattr(value, "shape") and hasattr(value, "dtype")


def jit_target(fn: Callable[..., Any], args: Sequence[Any]) -> Any:
    """`jax.jit(fn)` with every non-array argument static; an already-jitted `fn` is used as is."""
    import jax

    if hasattr(fn, "lower"):
        return fn
    return jax.jit(fn, static_argnums=tuple(i for i, a in enumerate(args) if not is_array(a)))


def lower_and_compile(fn: Callable[..., Any], args: Sequence[Any], name: str) -> tuple[Any, Any, float, float]:
    """AOT-compile `fn` for `args`: return (lowered, compiled, lower seconds, compile seconds)."""
    import time

    jitted = jit_target(fn, args)
    start = time.perf_counter()
    lowered = call_target(jitted.lower, args, f"lowering {name}")
    lowered_at = time.perf_counter()
    compiled = call_target(lambda: lowered.compile(), (), f"compiling {name}")
    return lowered, compiled, lowered_at - start, time.perf_counter() - lowered_at


def compiled_args(compiled: Any, args: Sequence[Any]) -> list[Any]:
    """The arguments a `Compiled` takes: `args` without the static ones, which are baked in."""
    dynamic = len(compiled.args_info[0])
    if dynamic == len(args):
        return list(args)
    arrays = [a for a in args if is_array(a)]
    if len(arrays) != dynamic:
        raise CliError(f"cannot tell which of the {len(args)} inputs are static ({dynamic} are traced)")
    return arrays


# --- output --------------------------------------------------------------------------------------

def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a plain-text table and a blank line; floats get 4 significant digits."""
    print(format_table(title, columns, rows), end="\n\n")


def format_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """`title`, a header row, a rule and the rows, in columns two spaces apart (no dependency)."""
    cells = [[f"{c:.4g}" if isinstance(c, float) else str(c) for c in row] for row in rows]
    widths = [max([len(column), *(len(row[i]) for row in cells)]) for i, column in enumerate(columns)]
    numeric = [bool(rows) and all(_is_number(row[i]) for row in rows) for i in range(len(columns))]

    def line(values: Sequence[str]) -> str:
        padded = (v.rjust(w) if right else v.ljust(w) for v, w, right in zip(values, widths, numeric))
        return "  ".join(padded).rstrip()

    return "\n".join([title, line(columns), line(["-" * w for w in widths]), *map(line, cells)])


def _is_number(cell: object) -> bool:
    if isinstance(cell, (int, float)) or cell in ("", None, "n/a"):
        return True
    return isinstance(cell, str) and re.fullmatch(r"[+-]?[\d,]+(\.\d+)?", cell) is not None


def environment() -> dict[str, object]:
    """Where the numbers came from: hardware, JAX backend and versions (imports JAX)."""
    import platform

    import jax
    import jaxlib

    return {
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "backend": jax.default_backend(),
        "device_count": jax.device_count(),
        "python": platform.python_version(),
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
    }


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or "unknown CPU"


def format_environment(env: dict[str, object]) -> str:
    """One line for under a table: `measured on: x86_64 <cpu>, 2 cores, 1 x cpu; jax 0.12.0.1 ...`."""
    return (
        f"measured on: {env['machine']} {env['cpu']}, {env['cores']} cores, "
        f"{env['device_count']} x {env['backend']}; Python {env['python']}, "
        f"jax {env['jax']}, jaxlib {env['jaxlib']}"
    )


def print_json(data: Any) -> None:
    """Print `data` as indented JSON on stdout (the only thing on stdout in `--json` mode)."""
    print(json.dumps(data, indent=2, default=str))
