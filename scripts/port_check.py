# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "flax==0.12.12"]
# ///
"""Check a PyTorch -> Flax NNX port layer by layer against the source model's intermediate outputs.

Give it (a) an .npz of the PyTorch model's named intermediate outputs, as forward hooks write them,
and (b) a function that builds the ported NNX model and its inputs. It runs the NNX model once under
`nnx.capture(model, nnx.Intermediate, method_outputs=nnx.Intermediate)`, which records the output of
every submodule's `__call__` (and of its other public methods, and every `self.sow(nnx.Intermediate,
...)`), and prints, layer by layer in the order of the .npz, the largest absolute and relative
difference and whether the layer is within the tolerance, which is numpy.allclose's:

    |nnx - reference| <= ATOL + RTOL * |reference|   for every element

The first layer that leaves it is named: with every earlier layer within, that is where the port goes
wrong (later layers inherit the difference). Exit 0 when every layer is within, 1 otherwise.

the .npz (the reference):
  One array per layer, named by its PyTorch module name (`model.named_modules()`), e.g.
  {"stem.conv": ..., "stem.bn": ..., "blocks.0.mlp.fc1": ..., "head": ...}, in the order the layers
  ran (hooks fire in that order and np.savez keeps it). "/" may stand for ".": "stem/conv" is
  "stem.conv". The empty name "" is the whole model's output. A layer that returned a tuple is given
  by its first element. These forward hooks write it (run them with the same weights and inputs that
  the --model function uses):

    import numpy as np, torch
    outputs = {}
    def save(name):
        def hook(module, args, output):
            output = output[0] if isinstance(output, (tuple, list)) else output
            outputs[name] = output.detach().float().cpu().numpy()
        return hook
    for name, module in model.named_modules():
        if name:                       # "" is the model itself
            module.register_forward_hook(save(name))
    model.eval()
    with torch.no_grad():
        model(x)
    np.savez("reference.npz", **outputs)

the --model function:
  PATH.py:FUNCTION or MODULE:FUNCTION, called with no arguments, returning (model, inputs): an
  nnx.Module with the ported weights loaded, and its inputs: one array, a tuple/list of positional
  arguments, or a dict of keyword arguments. The model is called eagerly (not jitted), once.

how NNX paths map to the names in the .npz:
  The output of a submodule's `__call__` at NNX path ("stem", "conv") is "stem.conv"; list entries
  are numbered as in PyTorch (("blocks", 0, "mlp") is "blocks.0.mlp"); nnx.Sequential's own `layers`
  level is left out, so its children are "seq.0", "seq.1" as in nn.Sequential. Another public method
  `encode` of that module is "stem.conv.encode", and `self.sow(nnx.Intermediate, "act", x)` in the
  module at "stem" is "stem.act" -- the way to give a name to what PyTorch runs as a module and NNX as
  a function (nn.GELU, nn.ReLU, nn.Flatten, nn.Dropout): sow it with capture_noop=True, or leave the
  name out with --skip. A module called more than once is compared on its last call, like the hook,
  which keeps the last. A class that inherits `__call__` without defining it is not recorded (flax
  0.12.12 instruments only the methods a class defines itself). Names the model produces that the .npz
  does not have are not compared (they are listed in --json as "unchecked").

layout:
  PyTorch convolutions are NCHW and NNX's are NHWC. With --channels-first, every 4-dimensional
  reference array is taken as NCHW and compared with the NNX output as NHWC; other ranks are compared
  as they are (a port that keeps NCHW somewhere should transpose in its own code).
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _cli import (
    EXIT_CHECK_FAILED,
    EXIT_OK,
    CliError,
    CliParser,
    UsageError,
    call_target,
    environment,
    first_line,
    format_environment,
    load_callable,
    print_json,
    print_table,
    run_cli,
)

EXAMPLES = """\
examples:
  python scripts/port_check.py reference.npz --model port.py:make
  python scripts/port_check.py reference.npz --model port.py:make --channels-first --atol 1e-4 --rtol 1e-3
  python scripts/port_check.py reference.npz --model mypkg.port:make --skip '*.act' --skip '*.dropout' --json
"""

EXIT_CODES = """\
exit codes:
  0    every layer is within --atol/--rtol
  1    an error: a name of the .npz the model does not produce, a shape mismatch, or the model could
       not be built or run
  2    usage error (unknown flag, missing or unreadable .npz, malformed MODULE:FUNCTION)
  3    a layer leaves the tolerance (the table names the first one)
  130  interrupted (Ctrl-C)
Errors are one line on stderr starting with "error:". Set JAX_PRO_TRACEBACK=1 to see the traceback."""


def build_parser() -> CliParser:
    parser = CliParser(prog="port_check.py", description=__doc__, epilog="\n\n".join([EXAMPLES, EXIT_CODES]))
    parser.add_argument("reference", type=Path, help=".npz of the PyTorch model's intermediate outputs, by module name")
    parser.add_argument("--model", required=True, metavar="PATH.py:FUNCTION",
                        help="function returning (nnx model with the ported weights, its inputs)")
    parser.add_argument("--atol", type=non_negative_float, default=1e-5, help="absolute tolerance (default 1e-5)")
    parser.add_argument("--rtol", type=non_negative_float, default=1e-4, help="relative tolerance (default 1e-4)")
    parser.add_argument("--channels-first", action="store_true",
                        help="4-dimensional reference arrays are NCHW: compare them as NHWC")
    parser.add_argument("--skip", action="append", default=[], metavar="GLOB",
                        help="leave out reference names matching GLOB (repeat the flag), e.g. '*.act'")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    return parser


def non_negative_float(text: str) -> float:
    """argparse type: a float >= 0."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


# --- the reference ------------------------------------------------------------------------------

def canonical(name: str) -> str:
    """"stem/conv" and "stem.conv" are the same layer."""
    return name.replace("/", ".")


def load_reference(path: Path, skip: Sequence[str]) -> dict[str, Any]:
    """The .npz's arrays by canonical name, in the file's order, without the --skip ones."""
    import zipfile

    import numpy as np

    if not path.is_file():
        raise UsageError(f"no such file: {path}")
    try:
        npz = np.load(path, allow_pickle=False)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            raise UsageError(f"{path} holds one array, not named layers: write it with np.savez(path, **outputs)")
        with npz:
            arrays = {canonical(name): npz[name] for name in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise UsageError(f"cannot read {path} as an .npz: {first_line(str(exc))}") from exc
    kept = {name: a for name, a in arrays.items() if not any(fnmatch.fnmatchcase(name, g) for g in skip)}
    if not kept:
        raise UsageError(f"{path} has no layers to compare" + (" after --skip" if arrays else ""))
    return kept


# --- the NNX side -------------------------------------------------------------------------------

def build(spec: str) -> tuple[Any, Any]:
    """Call the --model function; check it returned (nnx.Module, inputs)."""
    from flax import nnx

    make = load_callable(spec)
    result = call_target(make, (), spec)
    if not (isinstance(result, tuple) and len(result) == 2):
        raise CliError(f"{spec} must return (model, inputs), got {type(result).__name__}")
    model, inputs = result
    if not isinstance(model, nnx.Module):
        raise CliError(f"{spec} returned a {type(model).__name__} as the model, expected an nnx.Module")
    return model, inputs


def run_captured(model: Any, inputs: Any, spec: str) -> dict[str, tuple[str, Any]]:
    """Run the model once under nnx.capture; {npz-style name: (NNX path, last recorded value)}."""
    from flax import nnx

    sequential = {path for path, module in nnx.iter_modules(model) if isinstance(module, nnx.Sequential)}
    forward = nnx.capture(model, nnx.Intermediate, method_outputs=nnx.Intermediate)
    if isinstance(inputs, dict):
        _, captured = call_target(lambda: forward(**inputs), (), f"the model from {spec}")
    elif isinstance(inputs, (tuple, list)):
        _, captured = call_target(forward, tuple(inputs), f"the model from {spec}")
    else:
        _, captured = call_target(forward, (inputs,), f"the model from {spec}")
    outputs = {}
    for path, variable in nnx.to_flat_state(captured):
        calls = variable.get_value()
        value = calls[-1] if isinstance(calls, tuple) and calls else calls
        if isinstance(value, (tuple, list)) and value:
            value = value[0]
        outputs[layer_name(path, sequential)] = ("/".join(map(str, path)), value)
    return outputs


def layer_name(path: tuple[Any, ...], sequential: set[tuple[Any, ...]]) -> str:
    """("stem", "conv", "__call__") -> "stem.conv"; ("seq", "layers", 0, "__call__") -> "seq.0"."""
    parts = [str(part) for i, part in enumerate(path)
             if not (part == "layers" and tuple(path[:i]) in sequential)]
    if parts and parts[-1] == "__call__":
        parts.pop()
    return ".".join(parts)


# --- comparison ---------------------------------------------------------------------------------

def compare(reference: dict[str, Any], outputs: dict[str, tuple[str, Any]], args: Any) -> list[dict[str, Any]]:
    """One row per reference layer; a missing name or a shape mismatch is an error naming the layer."""
    import numpy as np

    rows = []
    for name, ref in reference.items():
        if name not in outputs:
            close = difflib.get_close_matches(name, list(outputs), n=3)
            hint = f" (did you mean: {', '.join(map(repr, close))}?)" if close else ""
            raise CliError(f"layer {name!r} of {args.reference.name} is not produced by the model: the NNX model "
                           f"records {len(outputs)} names{hint}; sow it or leave it out with --skip")
        nnx_path, value = outputs[name]
        if not hasattr(value, "shape"):
            raise CliError(f"layer {name!r} ({nnx_path}) returned a {type(value).__name__}, not an array")
        got = np.asarray(value, np.float64)
        want = np.asarray(ref, np.float64)
        if args.channels_first and want.ndim == 4:
            want = np.moveaxis(want, 1, -1)
        if got.shape != want.shape:
            hint = ""
            if not args.channels_first and want.ndim == 4 and np.moveaxis(want, 1, -1).shape == got.shape:
                hint = " (NCHW vs NHWC: pass --channels-first)"
            raise CliError(f"layer {name!r}: the reference has shape {tuple(ref.shape)}"
                           f"{' (NHWC ' + str(want.shape) + ')' if want.shape != ref.shape else ''}, "
                           f"the NNX output at {nnx_path} has shape {got.shape}{hint}")
        err = np.abs(got - want)
        nonzero = want != 0
        rel = float(np.max(err[nonzero] / np.abs(want[nonzero]))) if nonzero.any() else 0.0
        rows.append({
            "name": name,
            "nnx_path": nnx_path,
            "shape": list(got.shape),
            "max_abs_diff": float(np.max(err)) if err.size else 0.0,
            "max_rel_diff": rel,
            "within": bool(np.all(err <= args.atol + args.rtol * np.abs(want))),
        })
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import flax.nnx  # noqa: F401 - needed to capture the port's intermediates; a missing flax is named first
    reference = load_reference(args.reference, args.skip)
    model, inputs = build(args.model)
    outputs = run_captured(model, inputs, args.model)
    rows = compare(reference, outputs, args)
    first = next((row["name"] for row in rows if not row["within"]), None)
    if args.json:
        print_json({
            "reference": str(args.reference), "model": args.model, "atol": args.atol, "rtol": args.rtol,
            "channels_first": args.channels_first, "layers": rows, "first_outside": first,
            "unchecked": [name for name in outputs if name not in reference], "environment": environment(),
        })
    else:
        title = (f"port_check: {args.model} vs {args.reference.name}, within = |nnx - ref| <= "
                 f"{args.atol:g} + {args.rtol:g} |ref|")
        table = [[r["name"] or '""', r["nnx_path"], "x".join(map(str, r["shape"])) or "scalar",
                  r["max_abs_diff"], r["max_rel_diff"], "yes" if r["within"] else "NO"] for r in rows]
        print_table(title, ["layer", "nnx path", "shape", "max abs diff", "max rel diff", "within"], table)
        if first is None:
            print(f"all {len(rows)} layers within tolerance")
        else:
            outside = sum(not r["within"] for r in rows)
            print(f"first layer outside tolerance: {first} ({outside} of {len(rows)} layers outside)")
        print(format_environment(environment()))
    return EXIT_OK if first is None else EXIT_CHECK_FAILED


if __name__ == "__main__":
    run_cli(main)
