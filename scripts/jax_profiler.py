# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Capture a jax.profiler trace and print its most expensive XLA operations as a table.

An assistant has no browser, so this tool reads the trace itself. It runs MODULE:FUNCTION on
example inputs (compiled and warmed up first, so compilation stays out of the trace), or a whole
script (`--script`, run as __main__), inside `jax.profiler.trace(OUT, create_perfetto_trace=True)`.
JAX then writes, under OUT/plugins/profile/<run>/:

  <host>.xplane.pb        the full profile, for XProf / TensorBoard
  <host>.trace.json.gz    Chrome trace-event JSON, which this tool parses
  perfetto_trace.json.gz  the same events without metadata, for ui.perfetto.dev

Each XLA operation event carries `hlo_module` and `hlo_op` (e.g. `jit_step` / `ynn_fusion.1`).
The tool also asks XLA to dump the optimized HLO (`--xla_dump_to=OUT/hlo_dump`) and maps every
`hlo_op` back to its source operation (`op_name` metadata such as `jit(step)/attention/dot_general`),
so the names of `jax.named_scope` blocks show up next to the ops they produced (the runtime op names
themselves, such as fusion names, do not carry them). In --script mode, compilation happens inside
the trace. `--read` summarises a trace that already exists.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import re
import runpy
import shutil
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _cli import (
    EXIT_CODES_HELP,
    INPUT_SPEC_HELP,
    CliError,
    CliParser,
    UsageError,
    call_target,
    check_input_specs,
    compiled_args,
    environment,
    first_line,
    format_environment,
    load_callable,
    lower_and_compile,
    parse_inputs,
    positive_int,
    print_json,
    print_table,
    run_cli,
    setup_host_devices,
)

EXAMPLES = """\
examples:
  python scripts/jax_profiler.py mypkg.model:forward --input f32[64,512] --input f32[512,512]
  python scripts/jax_profiler.py model.py:step --input f32[8,128] --runs 5 --top 20 --out /tmp/prof
  python scripts/jax_profiler.py --out /tmp/prof --script train.py --steps 3
  python scripts/jax_profiler.py --read /tmp/prof --json      # summarise an existing trace

viewing the trace in a browser:
  Perfetto   open https://ui.perfetto.dev, "Open trace file", pick the perfetto_trace.json.gz
             (or the <host>.trace.json.gz) printed by this tool
  XProf      pip install xprof; xprof --port 8791 OUT; open http://localhost:8791, tool trace_viewer
  TensorBoard  pip install tensorboard tensorboard-plugin-profile; tensorboard --logdir OUT (Profile tab)
             (xprof, tensorboard and its profile plugin are not installed in this repository's environment)"""


def build_parser() -> CliParser:
    parser = CliParser(
        prog="jax_profiler.py", description=__doc__,
        epilog="\n\n".join([EXAMPLES, INPUT_SPEC_HELP, EXIT_CODES_HELP]),
    )
    parser.add_argument("target", nargs="?", help="MODULE:FUNCTION or PATH.py:FUNCTION to profile")
    parser.add_argument(
        "--input", "-i", action="append", default=[], metavar="SPEC",
        help="one positional argument, in order (repeat the flag): f32[64,512], or a literal (static)",
    )
    parser.add_argument("--runs", type=positive_int, default=3, help="traced calls of TARGET (default 3)")
    parser.add_argument("--top", type=positive_int, default=15, help="rows in the table of operations (default 15)")
    parser.add_argument("--out", metavar="DIR", help="trace directory (default: a new jax_profile_* directory in the temp dir)")
    parser.add_argument(
        "--script", nargs=argparse.REMAINDER, metavar="PATH.py [ARGS]",
        help="profile this script run as __main__ with these arguments (must be the last tool option)",
    )
    parser.add_argument("--read", metavar="PATH", help="summarise an existing trace: a directory or a *.trace.json.gz file")
    parser.add_argument(
        "--devices", type=positive_int, metavar="N",
        help="run on N virtual CPU devices (sets XLA_FLAGS=--xla_force_host_platform_device_count=N)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    return parser


# --- capture -------------------------------------------------------------------------------------

def enable_hlo_dump(directory: Path) -> None:
    """Ask XLA to write optimized HLO text for every compiled module (before JAX starts)."""
    if "jax" in sys.modules:
        raise CliError("JAX was imported before the HLO dump could be configured")
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = f"{flags} --xla_dump_to={directory} --xla_dump_hlo_as_text".strip()


def profile_function(spec: str, input_specs: list[str], runs: int, out: Path) -> None:
    """Compile and warm up TARGET untraced, then trace `runs` calls."""
    import jax

    fn = load_callable(spec)
    inputs = parse_inputs(input_specs)
    _, compiled, _, _ = lower_and_compile(fn, inputs, spec)
    dynamic = compiled_args(compiled, inputs)
    call_target(lambda: jax.block_until_ready(compiled(*dynamic)), (), f"running {spec}")
    with jax.profiler.trace(str(out), create_perfetto_trace=True):
        for _ in range(runs):
            jax.block_until_ready(compiled(*dynamic))


def profile_script(argv: Sequence[str], out: Path, quiet_stdout: bool) -> str | None:
    """Run a script as __main__ inside a trace; return the error that ended it, if any."""
    import jax

    path = Path(argv[0])
    if not path.is_file():
        raise UsageError(f"no such script: {argv[0]}")
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [str(path), *argv[1:]]
    sys.path.insert(0, str(path.resolve().parent))
    redirect = contextlib.redirect_stdout(sys.stderr) if quiet_stdout else contextlib.nullcontext()
    error = None
    with jax.profiler.trace(str(out), create_perfetto_trace=True), redirect:
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (None, 0):
                error = f"script exited with code {exc.code}"
        except Exception as exc:
            error = f"{_where(exc, path)} raised {type(exc).__name__}: {first_line(str(exc))}"
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    return error


def _where(exc: BaseException, script: Path) -> str:
    """`train.py:12`, the script's own line nearest the error, or `train.py` if none is in the traceback."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename).resolve() == script.resolve()]
    return f"{script}:{lines[-1]}" if lines else str(script)


# --- finding and reading the trace ---------------------------------------------------------------

@dataclass
class TraceFiles:
    """The files of one profiler run."""

    run_dir: Path
    trace_json: Path
    perfetto: Path | None
    xplane: Path | None


def find_trace(path: Path) -> TraceFiles:
    """The newest run under `path` (a log dir or a run dir), or the trace file `path` itself."""
    if path.is_file():
        if not path.name.endswith((".json.gz", ".json")):
            raise UsageError(f"{path} is not a trace-event JSON file (*.trace.json.gz)")
        return _files_in(path.parent, path)
    if not path.is_dir():
        raise UsageError(f"no such trace directory or file: {path}")
    traces = sorted(path.rglob("*.trace.json.gz"), key=lambda p: p.stat().st_mtime)
    if not traces:
        raise CliError(f"no *.trace.json.gz under {path}: did the profiled code run any JAX operation?")
    return _files_in(traces[-1].parent, traces[-1])


def _files_in(run_dir: Path, trace_json: Path) -> TraceFiles:
    perfetto = run_dir / "perfetto_trace.json.gz"
    xplanes = sorted(run_dir.glob("*.xplane.pb"))
    return TraceFiles(run_dir, trace_json, perfetto if perfetto.is_file() else None, xplanes[-1] if xplanes else None)


def load_events(trace_json: Path) -> list[dict[str, Any]]:
    """The complete ('X') events of a Chrome trace-event file, gzipped or not."""
    opener = gzip.open if trace_json.name.endswith(".gz") else open
    try:
        with opener(trace_json, "rt", encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, json.JSONDecodeError, EOFError) as exc:
        raise CliError(f"cannot read {trace_json}: {first_line(str(exc))}") from exc
    events = data.get("traceEvents", []) if isinstance(data, dict) else data
    return [e for e in events if isinstance(e, dict) and e.get("ph") == "X"]


def load_op_names(dump_dir: Path) -> dict[tuple[str, str], str]:
    """(module, instruction) -> `op_name` metadata, from the optimized HLO text XLA dumped."""
    names: dict[tuple[str, str], str] = {}
    for file in sorted(dump_dir.glob("*after_optimizations.txt")):
        text = file.read_text(encoding="utf-8", errors="replace")
        header = re.match(r"HloModule (\S+?),", text)
        if not header:
            continue
        for inst, op_name in re.findall(r'^\s+(?:ROOT )?%?([\w.\-]+) = .*?metadata=\{op_name="([^"]*)"', text, re.MULTILINE):
            names.setdefault((header.group(1), inst), op_name)
    return names


def summarize_ops(events: list[dict[str, Any]], op_names: dict[tuple[str, str], str]) -> list[dict[str, Any]]:
    """Count and total time of each XLA operation (events carrying `hlo_op`), biggest first."""
    totals: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0.0])
    for event in events:
        args = event.get("args") or {}
        if "hlo_op" in args:
            entry = totals[(args.get("hlo_module", "?"), args["hlo_op"])]
            entry[0] += 1
            entry[1] += float(event.get("dur", 0.0))
    grand_total = sum(t for _, t in totals.values()) or 1.0
    rows = [
        {
            "module": module, "op": op, "source_op": op_names.get((module, op), ""),
            "count": int(count), "total_ms": total_us / 1e3, "percent": 100.0 * total_us / grand_total,
        }
        for (module, op), (count, total_us) in totals.items()
    ]
    return sorted(rows, key=lambda r: -r["total_ms"])


def summarize_scopes(ops: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Op time grouped by source scope: the `op_name` path without its last (primitive) part."""
    scopes: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for op in ops:
        scope = op["source_op"].rsplit("/", 1)[0] if "/" in op["source_op"] else op["source_op"] or "(unknown)"
        scopes[scope][0] += op["count"]
        scopes[scope][1] += op["total_ms"]
        scopes[scope][2] += op["percent"]
    rows = [{"scope": s, "count": int(c), "total_ms": t, "percent": p} for s, (c, t, p) in scopes.items()]
    return sorted(rows, key=lambda r: -r["total_ms"])


def summarize_jit_calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Host-side `PjitFunction(name)` events: how often each jitted function was called."""
    calls: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])
    open_until: dict[tuple[Any, str], float] = {}  # JAX nests one PjitFunction event in another per call
    for event in sorted(events, key=lambda e: (str(e.get("tid")), float(e.get("ts", 0.0)))):
        if not (match := re.fullmatch(r"PjitFunction\((.*)\)", str(event.get("name", "")))):
            continue
        start, duration = float(event.get("ts", 0.0)), float(event.get("dur", 0.0))
        key = (event.get("tid"), match.group(1))
        if start < open_until.get(key, float("-inf")):
            continue
        open_until[key] = start + duration
        calls[match.group(1)][0] += 1
        calls[match.group(1)][1] += duration / 1e3
    rows = [{"function": f, "calls": int(n), "host_ms": t} for f, (n, t) in calls.items()]
    return sorted(rows, key=lambda r: (-r["calls"], -r["host_ms"]))


# --- output --------------------------------------------------------------------------------------

def build_report(files: TraceFiles, dump_dir: Path | None, top: int) -> dict[str, Any]:
    events = load_events(files.trace_json)
    op_names = load_op_names(dump_dir) if dump_dir and dump_dir.is_dir() else {}
    ops = summarize_ops(events, op_names)
    if not ops:
        raise CliError(f"{files.trace_json} holds no XLA operation events (no 'hlo_op' in any event's args)")
    return {
        "trace_dir": str(files.run_dir),
        "files": {
            "trace_json": str(files.trace_json),
            "perfetto": str(files.perfetto) if files.perfetto else None,
            "xplane": str(files.xplane) if files.xplane else None,
        },
        "xla_op_total_ms": sum(op["total_ms"] for op in ops),
        "ops": ops[:top],
        "ops_total_count": len(ops),
        "scopes": summarize_scopes(ops) if op_names else [],
        "jit_calls": summarize_jit_calls(events),
    }


def print_report(report: dict[str, Any]) -> None:
    rows = [(o["op"], o["source_op"], o["count"], o["total_ms"], f"{o['percent']:.1f}") for o in report["ops"]]
    title = (f"top {len(report['ops'])} of {report['ops_total_count']} XLA ops by total time "
             f"({report['xla_op_total_ms']:.3f} ms of XLA op time)")
    print_table(title, ["op", "source op (named scopes)", "count", "total ms", "%"], rows)
    if report["scopes"]:
        rows = [(s["scope"], s["count"], s["total_ms"], f"{s['percent']:.1f}") for s in report["scopes"]]
        print_table("XLA op time by source scope", ["scope", "ops run", "total ms", "%"], rows)
    calls = report["jit_calls"]
    if calls:
        rows = [(c["function"], c["calls"], c["host_ms"]) for c in calls[: len(report["ops"])]]
        more = f", {len(calls) - len(rows)} more in --json" if len(calls) > len(rows) else ""
        title = f"jitted calls seen on the host, most frequent first{more}"
        print_table(title, ["function", "calls", "host ms (incl. any compile)"], rows)
    files = report["files"]
    print(f"trace: {report['trace_dir']}")
    print(f"  Perfetto: open https://ui.perfetto.dev -> Open trace file -> {files['perfetto'] or files['trace_json']}")
    print(f"  XProf:    xprof --port 8791 {Path(report['trace_dir']).parents[2]}  (pip install xprof; not installed here)")
    if "environment" in report:
        print(format_environment(report["environment"]))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    modes = [bool(args.target), args.script is not None, bool(args.read)]
    if sum(modes) != 1:
        raise UsageError("give exactly one of TARGET, --script PATH.py or --read PATH")
    if args.script == []:
        raise UsageError("--script needs the path of a Python script")
    if args.read:
        report = build_report(find_trace(Path(args.read)), _dump_dir_near(Path(args.read)), args.top)
        print_json(report) if args.json else print_report(report)
        return 0
    check_input_specs(args.input)
    out = Path(args.out) if args.out else default_out_dir()
    try:
        report, script_error = record(args, out)
    except BaseException:
        if not args.out:  # a run that produced no report leaves no jax_profile_* directory behind
            shutil.rmtree(out, ignore_errors=True)
        raise
    print_json(report) if args.json else print_report(report)
    if script_error:
        raise CliError(script_error)
    return 0


def record(args: argparse.Namespace, out: Path) -> tuple[dict[str, Any], str | None]:
    """Profile the target or the script into `out`; return the report and the script's error, if any."""
    enable_hlo_dump(out / "hlo_dump")  # XLA and the profiler create the directories when they write
    if args.devices:
        setup_host_devices(args.devices)
    script_error = None
    if args.script:
        script_error = profile_script(args.script, out, quiet_stdout=args.json)
    else:
        profile_function(args.target, args.input, args.runs, out)
    try:
        report = {**build_report(find_trace(out), out / "hlo_dump", args.top), "environment": environment()}
    except CliError as exc:
        if script_error:  # the script's own error is the news; the empty trace only follows from it
            raise CliError(f"{script_error} (no XLA operation ran before that, so there is no profile)") from exc
        raise
    return report, script_error


def default_out_dir() -> Path:
    """A new, not yet existing directory in the temp dir: jax_profile_<date>_<time>_<pid>."""
    return Path(tempfile.gettempdir()) / f"jax_profile_{time.strftime('%Y%m%d_%H%M%S')}_{os.getpid()}"


def _dump_dir_near(path: Path) -> Path | None:
    """The hlo_dump directory this tool wrote next to a trace, if `path` lies inside its output."""
    for parent in [path, *path.parents]:
        if (parent / "hlo_dump").is_dir():
            return parent / "hlo_dump"
    return None


if __name__ == "__main__":
    run_cli(main)
