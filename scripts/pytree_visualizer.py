# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1", "orbax-checkpoint==0.12.8"]
# ///
"""Show a pytree's structure: shapes, dtypes, sharding and parameter counts, per subtree and in total.

The pytree comes from Python code or from an Orbax checkpoint on disk:

  TARGET            MODULE:NAME or PATH.py:NAME, where NAME is a pytree, an NNX module (its
                    `nnx.state(...)` is shown, one line per Variable with its type: Param, BatchStat,
                    ...), or a function that takes no arguments and returns one of those.
  --checkpoint DIR  an Orbax checkpoint: the directory given to `ocp.CheckpointManager` (the newest
                    complete step is shown, or --step N) or one step directory inside it. Only the
                    metadata is read; no array is loaded.

"params" counts array elements (all leaves, whatever their Variable type); "bytes" is their size in
memory. The table under the tree sums both by leaf kind.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Sequence
from typing import Any

from _cli import (
    EXIT_CODES_HELP,
    CliParser,
    UsageError,
    call_target,
    load_module,
    non_negative_int,
    positive_int,
    run_cli,
    setup_host_devices,
    split_target,
)
from _pytree import build_tree, show

EXAMPLES = """\
examples:
  python scripts/pytree_visualizer.py mypkg.model:make_model          # a function returning an NNX model
  python scripts/pytree_visualizer.py train.py:params --depth 2       # a module-level pytree, 2 levels
  python scripts/pytree_visualizer.py --checkpoint ckpts/             # newest complete step, metadata only
  python scripts/pytree_visualizer.py --checkpoint ckpts/ --step 100 --json
"""


def build_parser() -> CliParser:
    parser = CliParser(prog="pytree_visualizer.py", description=__doc__, epilog="\n\n".join([EXAMPLES, EXIT_CODES_HELP]))
    parser.add_argument("target", nargs="?", help="MODULE:NAME or PATH.py:NAME giving a pytree, an NNX module or a "
                        "no-argument function returning one")
    parser.add_argument("--checkpoint", metavar="DIR", help="an Orbax checkpoint directory (root or one step)")
    parser.add_argument("--step", type=non_negative_int, help="with --checkpoint ROOT: the step to show "
                        "(default: the newest complete one)")
    parser.add_argument("--depth", type=non_negative_int, help="show this many levels; deeper subtrees are "
                        "summarised on one line (default: all)")
    parser.add_argument("--devices", type=positive_int, metavar="N", help="run on N virtual CPU devices, for "
                        "targets that build a mesh (sets XLA_FLAGS=--xla_force_host_platform_device_count=N)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a tree")
    return parser


# --- inputs --------------------------------------------------------------------------------------

def load_pytree(spec: str) -> Any:
    """The pytree named by `MODULE:NAME`: a value, a no-argument function's result, or an NNX state."""
    where, attr = split_target(spec)
    obj: Any = load_module(where)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{where!r} has no attribute {attr!r} (check the name after the colon)")
        obj = getattr(obj, part)
    if inspect.isroutine(obj):
        obj = call_target(obj, (), spec)
    nnx = sys.modules.get("flax.nnx")
    if nnx is not None and isinstance(obj, nnx.Module):
        return nnx.state(obj)
    return obj


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if (args.target is None) == (args.checkpoint is None):
        raise UsageError("give either TARGET (MODULE:NAME) or --checkpoint DIR (see pytree_visualizer.py --help)")
    if args.step is not None and args.checkpoint is None:
        raise UsageError("--step needs --checkpoint DIR")
    if args.devices is not None:
        setup_host_devices(args.devices)
    if args.checkpoint is not None:
        from checkpoint_manager import checkpoint_tree  # Orbax is imported only for checkpoints

        tree, name, extra = checkpoint_tree(args.checkpoint, args.step)
    else:
        tree, name, extra = load_pytree(args.target), args.target, {"target": args.target}
    show(build_tree(tree, name), args.depth, args.json, extra)
    return 0


if __name__ == "__main__":
    run_cli(main)
