# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Count JAX compilations per function and name the arguments that caused each recompilation.

Two ways to run:

  TARGET --call SPECS [--call SPECS ...]
      Calls MODULE:FUNCTION once per --call, in order. SPECS lists that call's positional arguments,
      separated by spaces: "f32[8]" or "f32[8,4] 3". A plain function is wrapped in jax.jit with its
      literal arguments (3, "relu") static; an already-jitted function is called as it is. The reason
      for a recompilation is the difference between this call's arguments and those of the closest
      earlier call that compiled, e.g. "x: f32[8] -> f32[16]" or "factor: 2 -> 3".

  --script PATH.py [ARGS ...]
      Runs a script as __main__ (argv = PATH.py ARGS) and watches every jitted function it calls.
      Reasons come from JAX's own cache-miss explanations.

Both modes turn on `jax_explain_cache_misses` and read JAX's compile log records
("Compiling jit(f) with global shapes and types ...", "Finished XLA compilation of jit(f) ...",
"TRACING CACHE MISS ...") through a logging handler, so nothing is parsed from stderr. A compilation
is counted at "Finished XLA compilation": a bare `.lower()` is not one, and a recompilation for an
argument committed to another device is one although nothing is lowered again. Compilations of JAX's internal eager operations (such as
the `broadcast_in_dim` behind `jnp.ones` outside jit) are hidden unless --all is given.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import logging
import re
import runpy
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from _cli import (
    EXIT_CODES_HELP,
    INPUT_SPEC_HELP,
    CheckFailed,
    CliError,
    CliParser,
    DTYPES,
    UsageError,
    call_target,
    check_input_specs,
    describe_value,
    environment,
    first_line,
    format_environment,
    jit_target,
    load_callable,
    non_negative_int,
    parse_inputs,
    print_json,
    positive_int,
    print_table,
    run_cli,
    setup_host_devices,
    short_name,
    split_specs,
)

EXAMPLES = """\
examples:
  python scripts/recompile_watch.py mypkg.model:loss --call f32[8] --call f32[16] --call f32[16]
  python scripts/recompile_watch.py ops.py:scaled --call "f32[8] 2" --call "f32[8] 3"
  python scripts/recompile_watch.py --fail-above 1 --script train.py --steps 3    # CI guard
  python scripts/recompile_watch.py --json --script train.py
Tool options go before --script: everything after the script path is passed to the script.
"""

PXLA_LOGGER = "jax._src.interpreters.pxla"
DISPATCH_LOGGER = "jax._src.dispatch"
EXPLAIN_LOGGER = "jax._src.interpreters.partial_eval"

_COMPILING = re.compile(r"^Compiling (\S+) with global shapes and types (.*)\. Argument mapping", re.DOTALL)
_FINISHED = re.compile(r"^Finished XLA compilation of (\S+) in ([\d.eE+-]+) sec")
_MISS_FOR = re.compile(r"^\s+for (\S+) defined at", re.MULTILINE)
_MISS_NEW = re.compile(r"never seen function:\n\s+(\S+) id=")
_TYPE_DIFF = re.compile(r"\* at (.+?), now (.+) and before (.+)$")
_CONTEXT_DIFF = re.compile(r"\* (.+?) differs: now (.+) and before (.+)$")


def build_parser() -> CliParser:
    parser = CliParser(
        prog="recompile_watch.py", description=__doc__,
        epilog="\n\n".join([EXAMPLES, INPUT_SPEC_HELP, EXIT_CODES_HELP]),
    )
    parser.add_argument("target", nargs="?", help="MODULE:FUNCTION or PATH.py:FUNCTION to call with each --call")
    parser.add_argument(
        "--call", "-c", action="append", default=[], metavar="SPECS",
        help='the positional arguments of one call, space-separated: "f32[8]" or "f32[8,4] 3" (repeat the flag)',
    )
    parser.add_argument(
        "--script", nargs=argparse.REMAINDER, metavar="PATH.py [ARGS]",
        help="run this script with these arguments instead of TARGET (must be the last tool option)",
    )
    parser.add_argument(
        "--fail-above", type=non_negative_int, metavar="N",
        help="exit 3 if any watched function compiled more than N times",
    )
    parser.add_argument("--all", action="store_true", help="also list compilations of JAX-internal eager operations")
    parser.add_argument(
        "--devices", type=positive_int, metavar="N",
        help="run on N virtual CPU devices (sets XLA_FLAGS=--xla_force_host_platform_device_count=N)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    return parser


# --- capturing JAX's compile log -----------------------------------------------------------------

@dataclass
class Compilation:
    """One XLA compilation seen in the log."""

    function: str
    signature: str
    reason: str
    jax_explanation: str | None = None
    seconds: float | None = None
    call: int | None = None


class CompileLog(logging.Handler):
    """A logging handler that turns JAX's compile records into `Compilation`s.

    JAX logs "Compiling f ..." when it lowers a trace and "Finished XLA compilation of f" when XLA
    compiles; only the second marks a compilation. A bare `.lower()` logs the first alone, and a
    recompilation that reuses a lowering (the same argument committed to another device) the second
    alone, so a compilation is counted at "Finished" and takes its signature from the lowering.
    """

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.compilations: list[Compilation] = []
        self.explained: set[str] = set()  # user functions: JAX explains cache misses of these only
        self.pending: dict[str, str] = {}  # function -> explanation not yet matched to a compilation
        self.lowered: dict[str, tuple[str, str | None]] = {}  # function -> (signature, explanation)

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("TRACING CACHE MISS"):
            self._on_explanation(message)
        elif match := _COMPILING.match(message):
            name = function_name(match.group(1))
            self.lowered[name] = (compact_avals(match.group(2)), self.pending.pop(name, None))
        elif match := _FINISHED.match(message):
            name = function_name(match.group(1))
            if name in self.lowered:
                signature, explanation = self.lowered.pop(name)
                reason = summarize_explanation(explanation)
            else:
                signature = next((c.signature for c in reversed(self.compilations) if c.function == name), "?")
                explanation, reason = None, "an earlier lowering compiled again (e.g. an argument committed to another device)"
            self.compilations.append(Compilation(name, signature, reason, explanation, float(match.group(2))))

    def _on_explanation(self, message: str) -> None:
        match = _MISS_NEW.search(message) or _MISS_FOR.search(message)
        if match:
            self.explained.add(match.group(1))
            self.pending[match.group(1)] = message


def function_name(module_name: str) -> str:
    """`jit(step)` -> `step`; other names are kept."""
    match = re.fullmatch(r"jit\((.*)\)", module_name)
    return match.group(1) if match else module_name


_AVAL = re.compile(r"ShapedArray\((\w+)\[([^\]]*)\](, weak_type=True)?\)")


def compact_avals(text: str) -> str:
    """`(ShapedArray(float32[8]), ShapedArray(int32[], weak_type=True))` -> `f32[8], i32[](weak)`."""
    short = {name: key for key, name in DTYPES.items() if key != "pred"}
    text = _AVAL.sub(lambda m: f"{short.get(m[1], m[1])}[{m[2].replace(' ', '')}]{'(weak)' if m[3] else ''}", text)
    return text.removeprefix("(").removesuffix(")").removesuffix(",")


def summarize_explanation(explanation: str | None) -> str:
    """One line from JAX's multi-line cache-miss explanation."""
    if explanation is None:
        return "no tracing cache miss logged (same trace compiled again, e.g. for other devices)"
    if "never seen function" in explanation:
        return "first compilation"
    changes = []
    for line in explanation.splitlines():
        if match := _TYPE_DIFF.search(line):
            where, new, old = match.groups()
            if where.startswith("input path"):
                changes.append(f"argument structure {where.removeprefix('input path ')}: {old} -> {new}")
            else:
                changes.append(f"{where}: {old} -> {new}")
        elif match := _CONTEXT_DIFF.search(line):
            changes.append(f"{match.group(1)}: {match.group(3)} -> {match.group(2)}")
    if changes:
        return "; ".join(changes)
    if "explanation unavailable" in explanation:
        return "JAX gives no explanation (typically a static argument's value changed)"
    if "Debug info doesn't match" in explanation:
        return "different debug info (e.g. another jax.jit wrapper of the same function)"
    return first_line(explanation.split("closest previous key:")[-1])


@contextlib.contextmanager
def watching_compiles() -> Iterator[CompileLog]:
    """Enable cache-miss explanations and capture JAX's compile log records while inside."""
    import jax

    handler = CompileLog()
    loggers = [logging.getLogger(name) for name in (PXLA_LOGGER, DISPATCH_LOGGER, EXPLAIN_LOGGER)]
    saved = [(lg.level, lg.propagate) for lg in loggers]
    explain = jax.config.jax_explain_cache_misses
    jax.config.update("jax_explain_cache_misses", True)
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.DEBUG)
    loggers[2].propagate = False  # the explanations are WARNINGs: keep them off stderr
    try:
        yield handler
    finally:
        for lg, (level, propagate) in zip(loggers, saved):
            lg.removeHandler(handler)
            lg.setLevel(level)
            lg.propagate = propagate
        jax.config.update("jax_explain_cache_misses", explain)


# --- TARGET --call mode --------------------------------------------------------------------------

def argument_names(fn: Any, count: int) -> list[str]:
    """Parameter names for the first `count` positional arguments (`arg3` when unknown)."""
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"arg{i}" for i in range(count)]


def signature_diff(new: Sequence[str], old: Sequence[str], names: Sequence[str]) -> list[str]:
    """`name: old -> new` for every argument whose description changed."""
    changes = [f"{name}: {o} -> {n}" for name, n, o in zip(names, new, old) if n != o]
    if len(new) != len(old):
        changes.append(f"number of arguments: {len(old)} -> {len(new)}")
    return changes


def watch_calls(spec: str, calls: Sequence[str]) -> tuple[CompileLog, list[list[str]]]:
    """Call TARGET once per --call and attribute each compilation to its call and argument changes."""
    import jax

    specs = [split_specs(call) for call in calls]
    for call in specs:
        check_input_specs(call)
    fn = load_callable(spec)
    inputs = [parse_inputs(call) for call in specs]
    described = [[describe_value(v) for v in args] for args in inputs]
    jitted = jit_target(fn, inputs[0])  # literals of the first call are static
    names = argument_names(fn, max(len(args) for args in inputs))
    compiled_before: list[list[str]] = []
    with watching_compiles() as log:
        for index, args in enumerate(inputs):
            seen = len(log.compilations)
            call_target(lambda *a: jax.block_until_ready(jitted(*a)), args, f"call {index + 1}: {spec}")
            for compilation in log.compilations[seen:]:
                compilation.call = index + 1
                if compiled_before and compilation.function in log.explained:
                    closest = min(compiled_before, key=lambda old: len(signature_diff(described[index], old, names)))
                    compilation.reason = "; ".join(signature_diff(described[index], closest, names)) or compilation.reason
            if len(log.compilations) > seen:
                compiled_before.insert(0, described[index])
    return log, described


# --- --script mode -------------------------------------------------------------------------------

def watch_script(argv: Sequence[str], quiet_stdout: bool) -> tuple[CompileLog, str | None]:
    """Run a script as __main__; return the log and the error that ended it, if any."""
    path = Path(argv[0])
    if not path.is_file():
        raise UsageError(f"no such script: {argv[0]}")
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(path), *argv[1:]]
    sys.path.insert(0, str(path.resolve().parent))
    error = None
    redirect = contextlib.redirect_stdout(sys.stderr) if quiet_stdout else contextlib.nullcontext()
    with watching_compiles() as log, redirect:
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):
                error = f"script exited with code {exc.code}"
        except Exception as exc:
            error = f"script raised {type(exc).__name__}: {first_line(str(exc))}"
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    return log, error


# --- report --------------------------------------------------------------------------------------

def build_report(log: CompileLog, show_all: bool) -> dict[str, Any]:
    """Compilations grouped by function; JAX-internal ones hidden unless `show_all`."""
    functions: dict[str, list[Compilation]] = {}
    hidden: dict[str, int] = {}
    for compilation in log.compilations:
        if compilation.function in log.explained:
            functions.setdefault(compilation.function, []).append(compilation)
            continue
        hidden[compilation.function] = hidden.get(compilation.function, 0) + 1
        if show_all:
            compilation.reason = "JAX-internal operation: JAX explains cache misses of user functions only"
            functions.setdefault(compilation.function, []).append(compilation)
    return {
        "functions": [
            {
                "function": name,
                "compilations": len(events),
                "compile_seconds": sum(e.seconds or 0.0 for e in events),
                "events": [asdict(e) for e in events],
            }
            for name, events in functions.items()
        ],
        "hidden_internal_compilations": {} if show_all else hidden,
    }


def print_report(report: dict[str, Any], title: str) -> None:
    rows = [(f["function"], f["compilations"], f["compile_seconds"]) for f in report["functions"]]
    print_table(f"recompile_watch: {title}", ["function", "compilations", "XLA compile s"], rows)
    with_calls = "calls" in report
    columns = ["function", "#", *(["call"] if with_calls else []), "shapes and types", "reason"]
    events = [
        (f["function"], i, *([e["call"]] if with_calls else []), e["signature"], e["reason"])
        for f in report["functions"] for i, e in enumerate(f["events"], 1)
    ]
    if events:
        print_table("each compilation and its cause", columns, events)
    hidden = report["hidden_internal_compilations"]
    if hidden:
        print(f"hidden: {sum(hidden.values())} compilations of JAX-internal eager ops ({', '.join(sorted(hidden))}); --all lists them")
    print(format_environment(report["environment"]))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.script is not None and (args.target or args.call):
        raise UsageError("give either TARGET with --call, or --script, not both")
    if args.script is None and not (args.target and args.call):
        raise UsageError("give TARGET and at least one --call SPECS, or --script PATH.py")
    if args.script == []:
        raise UsageError("--script needs the path of a Python script")
    if args.devices:
        setup_host_devices(args.devices)
    script_error = None
    if args.script:
        log, script_error = watch_script(args.script, quiet_stdout=args.json)
        title, extra = " ".join(args.script), {"script": args.script}
    else:
        log, described = watch_calls(args.target, args.call)
        title, extra = short_name(args.target), {"target": args.target, "calls": described}
    report = {**extra, **build_report(log, args.all), "environment": environment()}
    if args.json:
        print_json(report)
    else:
        print_report(report, title)
    if script_error:
        raise CliError(script_error)
    if args.fail_above is not None:
        over = [f for f in report["functions"] if f["compilations"] > args.fail_above]
        if over:
            names = ", ".join(f"{f['function']} ({f['compilations']})" for f in over)
            raise CheckFailed(f"compiled more than --fail-above {args.fail_above} times: {names}")
    return 0


if __name__ == "__main__":
    run_cli(main)
