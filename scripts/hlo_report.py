# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""Report what XLA made of a JAX function: op counts, fusions, collectives, FLOPs and memory.

The tool compiles MODULE:FUNCTION for the example inputs (`jax.jit(f).lower(*args).compile()`) and
reads the optimized HLO (`compiled.as_text()`), `compiled.cost_analysis()` and
`compiled.memory_analysis()`. These figures are deterministic for a given JAX version and backend,
so unlike timings they can be asserted exactly and compared between two versions of a function:

  --diff OTHER     compares TARGET with OTHER on the same inputs (delta = OTHER - TARGET);
  --diff-git REV   compares TARGET as it was at git revision REV with the working tree
                   (delta = working tree - REV). The target's own file is taken from `git show
                   REV:path`; modules it imports come from the working tree. The file must be
                   importable on its own (no relative imports).

Op counts cover every computation, fused ones included (column `all`), and the ENTRY computation
alone (column `entry`: what runs at the top level, e.g. the fusions themselves).
"""

from __future__ import annotations

import difflib
import re
import subprocess
import tempfile
from collections import Counter
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
    environment,
    format_environment,
    jit_target,
    load_callable,
    load_module,
    lower_and_compile,
    parse_inputs,
    print_json,
    positive_int,
    print_table,
    run_cli,
    setup_host_devices,
    short_name,
    split_target,
)

COLLECTIVES = ("all-reduce", "all-gather", "reduce-scatter", "collective-permute", "all-to-all")
STAGES = ("jaxpr", "stablehlo", "hlo")

EXAMPLES = """\
examples:
  python scripts/hlo_report.py mypkg.model:loss --input f32[128,512] --input f32[512,512]
  python scripts/hlo_report.py model.py:step --input f32[64,64] --stage hlo      # dump optimized HLO
  python scripts/hlo_report.py ops.py:attention_naive --input f32[8,128,64] \\
      --diff ops.py:attention_fused                                              # op-count deltas
  python scripts/hlo_report.py ops.py:attention --input f32[8,128,64] --diff-git HEAD~1
  python scripts/hlo_report.py train.py:sharded_step --input f32[64,128] --devices 8 --json
"""


def build_parser() -> CliParser:
    parser = CliParser(prog="hlo_report.py", description=__doc__, epilog="\n\n".join([EXAMPLES, INPUT_SPEC_HELP, EXIT_CODES_HELP]))
    parser.add_argument("target", help="MODULE:FUNCTION or PATH.py:FUNCTION to compile")
    parser.add_argument(
        "--input", "-i", action="append", default=[], metavar="SPEC",
        help="one positional argument, in order (repeat the flag): f32[8,128], or a literal (static)",
    )
    parser.add_argument(
        "--stage", choices=STAGES,
        help="print the program text at this stage instead of the report: the jaxpr, the StableHLO "
        "module before XLA, or the optimized HLO after XLA (with --diff/--diff-git: a unified diff)",
    )
    diff = parser.add_mutually_exclusive_group()
    diff.add_argument("--diff", metavar="OTHER", help="compare with another MODULE:FUNCTION on the same inputs")
    diff.add_argument("--diff-git", metavar="REV", help="compare with TARGET's source file at git revision REV")
    parser.add_argument(
        "--devices", type=positive_int, metavar="N",
        help="compile for N virtual CPU devices (sets XLA_FLAGS=--xla_force_host_platform_device_count=N); "
        "needed when the function builds a mesh",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of tables")
    return parser


# --- HLO text parsing ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Instruction:
    """One HLO instruction: `[ROOT] %name = TYPE opcode(operands), attributes`."""

    computation: str
    entry: bool
    name: str
    opcode: str
    attributes: str


_COMPUTATION = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+)\s*\(.*->.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s+(?:ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$")
_OPCODE = re.compile(r"\s*([a-z][\w\-]*)\(")


def _skip_type(text: str) -> str:
    """Drop the leading result type (`f32[8]{0}` or a tuple `(f32[8], s32[])`) from `text`."""
    if not text.startswith("("):
        return text.split(None, 1)[1] if " " in text else ""
    depth = 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return text[i + 1 :]
    return ""


def parse_hlo(text: str) -> list[Instruction]:
    """Every instruction of an HLO module's text, with its computation and opcode."""
    instructions = []
    computation, entry = "", False
    for line in text.splitlines():
        if header := _COMPUTATION.match(line):
            computation, entry = header.group(2), bool(header.group(1))
            continue
        if not computation or not (inst := _INSTRUCTION.match(line)):
            continue
        if opcode := _OPCODE.match(_skip_type(inst.group(2).strip())):
            instructions.append(Instruction(computation, entry, inst.group(1), opcode.group(1), inst.group(2)))
    if not instructions:
        raise CliError("found no instructions in the HLO text: its format may have changed")
    return instructions


def fusion_kind(inst: Instruction) -> str:
    """`kLoop`, `kInput`, `kOutput`, or `kCustom:<backend kind>` such as `kCustom:__ynn_fusion`."""
    kind = re.search(r"\bkind=(k\w+)", inst.attributes)
    label = kind.group(1) if kind else "unknown"
    custom = re.search(r'"kind"\s*:\s*"([^"]+)"', inst.attributes)
    return f"{label}:{custom.group(1)}" if label == "kCustom" and custom else label


def collective_name(opcode: str) -> str | None:
    """The collective an opcode performs (`all-reduce-start` -> `all-reduce`); None otherwise."""
    if opcode.endswith("-done"):
        return None
    base = opcode.removesuffix("-start")
    return base if base in COLLECTIVES else None


# --- the report ----------------------------------------------------------------------------------

@dataclass
class Compiled:
    """One compiled target and the texts of its stages."""

    label: str
    lowered: Any
    compiled: Any
    fn: Any
    args: list[Any]

    def stage_text(self, stage: str) -> str:
        if stage == "jaxpr":
            jitted = jit_target(self.fn, self.args)
            return str(call_target(jitted.trace, self.args, f"tracing {self.label}").jaxpr)
        if stage == "stablehlo":
            return self.lowered.as_text()
        return self.compiled.as_text()


def compile_target(fn: Any, args: list[Any], label: str) -> Compiled:
    lowered, compiled, _, _ = lower_and_compile(fn, args, label)
    return Compiled(label, lowered, compiled, fn, args)


def build_report(target: Compiled) -> dict[str, Any]:
    """Op counts, fusions, collectives, cost and memory analysis of one compiled target."""
    instructions = parse_hlo(target.compiled.as_text())
    fusions = [i for i in instructions if i.opcode == "fusion" and i.entry]
    collectives = Counter({name: 0 for name in COLLECTIVES})
    collectives.update(c for i in instructions if (c := collective_name(i.opcode)))
    return {
        "target": target.label,
        "ops": dict(sorted(Counter(i.opcode for i in instructions).items())),
        "entry_ops": dict(sorted(Counter(i.opcode for i in instructions if i.entry).items())),
        "fusions": {"count": len(fusions), "kinds": dict(sorted(Counter(map(fusion_kind, fusions)).items()))},
        "collectives": dict(collectives),
        "cost": cost_summary(target.compiled),
        "memory": memory_summary(target.compiled),
    }


def cost_summary(compiled: Any) -> dict[str, float]:
    """FLOPs, transcendentals and bytes accessed from `compiled.cost_analysis()`."""
    cost = compiled.cost_analysis()
    if isinstance(cost, list):  # older JAX returned one dict per program
        cost = cost[0] if cost else {}
    cost = cost or {}
    return {
        "flops": float(cost.get("flops", 0.0)),
        "transcendentals": float(cost.get("transcendentals", 0.0)),
        "bytes_accessed": float(cost.get("bytes accessed", 0.0)),
    }


MEMORY_FIELDS = {
    "argument_bytes": "argument_size_in_bytes",
    "output_bytes": "output_size_in_bytes",
    "alias_bytes": "alias_size_in_bytes",
    "temp_bytes": "temp_size_in_bytes",
    "generated_code_bytes": "generated_code_size_in_bytes",
    "peak_bytes": "peak_memory_in_bytes",
}


def memory_summary(compiled: Any) -> dict[str, int | None]:
    """Buffer sizes from `compiled.memory_analysis()` (None when the backend does not say)."""
    stats = compiled.memory_analysis()
    if stats is None:
        return {key: None for key in MEMORY_FIELDS}
    return {key: getattr(stats, attr, None) for key, attr in MEMORY_FIELDS.items()}


def metric_rows(report: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, value) pairs for the summary and diff tables."""
    rows: list[tuple[str, Any]] = [(f"cost: {k}", v) for k, v in report["cost"].items()]
    rows += [(f"memory: {k}", v) for k, v in report["memory"].items()]
    rows.append(("fusions (entry)", report["fusions"]["count"]))
    rows += [(f"collective: {k}", v) for k, v in report["collectives"].items()]
    return rows


# --- git -----------------------------------------------------------------------------------------

def _git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise CliError("--diff-git needs the `git` command on PATH") from exc
    if done.returncode != 0:
        raise CliError(f"git {' '.join(args)} failed: {done.stderr.strip().splitlines()[0] if done.stderr.strip() else done.returncode}")
    return done.stdout


def load_at_revision(spec: str, rev: str, workdir: Path) -> Any:
    """Load TARGET's function from its source file as it was at git revision `rev`."""
    where, attr = split_target(spec)
    source = getattr(load_module(where), "__file__", None)
    if not source:
        raise UsageError(f"{where!r} has no source file to look up in git")
    source_path = Path(source).resolve()
    root = Path(_git(source_path.parent, "rev-parse", "--show-toplevel").strip()).resolve()
    relative = source_path.relative_to(root).as_posix()
    old = workdir / rev_dirname(rev) / source_path.name
    old.parent.mkdir(parents=True)
    old.write_text(_git(root, "show", f"{rev}:{relative}"), encoding="utf-8")
    return load_callable(f"{old}:{attr}")


def rev_dirname(rev: str) -> str:
    return re.sub(r"[^\w.\-]", "_", rev) or "rev"


# --- output --------------------------------------------------------------------------------------

def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and value.is_integer():
        return f"{int(value):,}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def print_report(report: dict[str, Any], inputs: Sequence[str]) -> None:
    title = f"hlo_report: {short_name(report['target'])} on {' '.join(inputs) or '(no inputs)'}"
    print_table(title, ["metric", "value"], [(name, _fmt(v)) for name, v in metric_rows(report)])
    ops = sorted(report["ops"], key=lambda op: (-report["ops"][op], op))
    rows = [(op, report["ops"][op], report["entry_ops"].get(op, 0)) for op in ops]
    print_table("optimized HLO op counts", ["opcode", "all", "entry"], rows)
    kinds = ", ".join(f"{k} x{n}" for k, n in report["fusions"]["kinds"].items()) or "none"
    print(f"fusion kinds: {kinds}")
    print(format_environment(report["environment"]))


def diff_reports(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Per-opcode and per-metric values of both reports and their delta (b - a)."""
    ops = sorted(set(a["ops"]) | set(b["ops"]))
    op_rows = {op: {"a": a["ops"].get(op, 0), "b": b["ops"].get(op, 0)} for op in ops}
    metrics = {}
    for (name, va), (_, vb) in zip(metric_rows(a), metric_rows(b)):
        metrics[name] = {"a": va, "b": vb}
    for row in [*op_rows.values(), *metrics.values()]:
        row["delta"] = None if row["a"] is None or row["b"] is None else row["b"] - row["a"]
    return {"ops": op_rows, "metrics": metrics}


def print_diff(diff: dict[str, Any], labels: tuple[str, str], inputs: Sequence[str]) -> None:
    a, b = labels
    title = f"hlo_report diff on {' '.join(inputs) or '(no inputs)'}: delta = B - A"
    rows = [(op, r["a"], r["b"], _signed(r["delta"])) for op, r in diff["ops"].items()]
    rows.sort(key=lambda r: (r[3] == "0", r[0]))
    print_table(title, ["opcode", f"A: {a}", f"B: {b}", "delta"], rows)
    metric_rows_ = [(m, _fmt(r["a"]), _fmt(r["b"]), _signed(r["delta"])) for m, r in diff["metrics"].items()]
    print_table("cost, memory, fusions, collectives", ["metric", "A", "B", "delta"], metric_rows_)


def _signed(value: Any) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:+,}" if value else "0"


_DEBUG_SECTIONS = re.compile(r"^(FileNames|FunctionNames|FileLocations|StackFrames)\n(?:.+\n)*", re.MULTILINE)
_METADATA = re.compile(r", metadata=\{[^{}]*\}")


def strip_debug_info(text: str) -> str:
    """HLO text without source locations (file tables, `metadata={...}`), which differ between any two files."""
    return _METADATA.sub("", _DEBUG_SECTIONS.sub("", text))


def print_text_diff(a: str, b: str, labels: tuple[str, str]) -> None:
    a, b = strip_debug_info(a), strip_debug_info(b)
    lines = difflib.unified_diff(a.splitlines(), b.splitlines(), fromfile=labels[0], tofile=labels[1], lineterm="")
    print("\n".join(lines) or f"no difference between {labels[0]} and {labels[1]}")


# --- main ----------------------------------------------------------------------------------------

def load_targets(args: Any, workdir: Path) -> list[tuple[str, Any]]:
    """(label, function) for TARGET alone, or the (A, B) pair of --diff / --diff-git."""
    if args.diff:
        return [(short_name(args.target), load_callable(args.target)), (short_name(args.diff), load_callable(args.diff))]
    if args.diff_git:
        name = short_name(args.target)
        old = load_at_revision(args.target, args.diff_git, workdir)
        return [(f"{name} @ {args.diff_git}", old), (f"{name} (working tree)", load_callable(args.target))]
    return [(args.target, load_callable(args.target))]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.devices:
        setup_host_devices(args.devices)
    check_input_specs(args.input)
    with tempfile.TemporaryDirectory(prefix="hlo_report_") as workdir:
        targets = load_targets(args, Path(workdir))
        inputs = parse_inputs(args.input)
        compiled = [compile_target(fn, inputs, label) for label, fn in targets]
        if args.stage:
            texts = [c.stage_text(args.stage) for c in compiled]
            if len(texts) == 1:
                print(texts[0])
            else:
                print_text_diff(texts[0], texts[1], (targets[0][0], targets[1][0]))
            return 0
        reports = [build_report(c) for c in compiled]
    env = environment()
    if len(reports) == 1:
        report = {**reports[0], "inputs": args.input, "environment": env}
        print_json(report) if args.json else print_report(report, args.input)
        return 0
    labels = (targets[0][0], targets[1][0])
    diff = diff_reports(*reports)
    if args.json:
        print_json({"labels": {"a": labels[0], "b": labels[1]}, "inputs": args.input, "a": reports[0],
                    "b": reports[1], "diff": diff, "environment": env})
    else:
        print_diff(diff, labels, args.input)
        print(format_environment(env))
    return 0


if __name__ == "__main__":
    run_cli(main)
