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
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from _cli import (
    EXIT_CODES_HELP,
    CliParser,
    UsageError,
    call_target,
    load_module,
    non_negative_int,
    print_json,
    positive_int,
    print_table,
    run_cli,
    setup_host_devices,
    split_target,
)

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


# --- the tree model ------------------------------------------------------------------------------

@dataclass
class Leaf:
    """One leaf: an array (or array metadata) with its shape, dtype and sharding, or another value."""

    kind: str
    shape: tuple[int, ...] | None = None
    dtype: str | None = None
    sharding: str | None = None
    value: str | None = None

    @property
    def size(self) -> int:
        return math.prod(self.shape) if self.shape is not None else 0


@dataclass
class Node:
    """A subtree with the totals of the leaves below it."""

    name: str
    leaf: Leaf | None = None
    children: dict[str, Node] = field(default_factory=dict)
    leaves: int = 0
    params: int = 0
    nbytes: int = 0


def key_name(key: Any) -> str:
    """`DictKey('w')` -> `w`, `GetAttrKey('kernel')` -> `kernel`, `SequenceKey(0)` -> `0`."""
    for attr in ("key", "name", "idx"):
        if hasattr(key, attr):
            return str(getattr(key, attr))
    return str(key)


def describe_sharding(sharding: Any) -> str | None:
    """A short text for a `jax.sharding.Sharding` or an Orbax sharding-metadata object."""
    if sharding is None:
        return None
    spec = getattr(sharding, "spec", getattr(sharding, "partition_spec", None))
    if spec is not None:
        mesh = getattr(sharding, "mesh", None)
        sizes = mesh.shape.values() if mesh is not None else sharding.shape  # Orbax metadata: a NumPy array
        names = mesh.shape.keys() if mesh is not None else sharding.axis_names
        axes = {str(name): int(size) for name, size in zip(names, sizes)}
        return f"{spec} over mesh {axes}"
    if hasattr(sharding, "device_str"):
        return str(sharding.device_str)
    devices = getattr(sharding, "device_set", None)
    if devices is not None and len(devices) == 1:
        return str(next(iter(devices)))
    return type(sharding).__name__


def _nbytes(value: Any, size: int) -> int:
    nbytes = getattr(value, "nbytes", None)
    if isinstance(nbytes, int):
        return nbytes
    import numpy as np

    try:
        return size * np.dtype(value.dtype).itemsize
    except TypeError:
        return 0


def describe_leaf(value: Any) -> tuple[Leaf, int]:
    """The `Leaf` for one pytree leaf (an NNX Variable is unwrapped) and its size in bytes."""
    kind = type(value).__name__
    if _is_nnx_variable(value):
        value = value.get_value()
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        kind = kind if kind not in ("ArrayImpl", "ndarray") else "Array"
        shape = tuple(int(d) for d in value.shape)
        sharding = describe_sharding(getattr(value, "sharding", None))
        leaf = Leaf(kind, shape, str(value.dtype), sharding)
        return leaf, _nbytes(value, leaf.size)
    return Leaf(kind, value=repr(value)[:60]), 0


def _is_nnx_variable(value: Any) -> bool:
    nnx = sys.modules.get("flax.nnx")  # only a tree that holds Variables has imported flax
    return nnx is not None and isinstance(value, nnx.Variable)


def build_tree(tree: Any, name: str = "root") -> Node:
    """Nest the leaves of `tree` by their key paths and sum leaves, params and bytes per subtree."""
    import jax

    root = Node(name)
    for path, value in jax.tree.leaves_with_path(tree, is_leaf=_is_nnx_variable):
        leaf, nbytes = describe_leaf(value)
        node = root
        for key in path:
            node.leaves, node.params, node.nbytes = node.leaves + 1, node.params + leaf.size, node.nbytes + nbytes
            node = node.children.setdefault(key_name(key), Node(key_name(key)))
        node.leaf, node.leaves, node.params, node.nbytes = leaf, 1, leaf.size, nbytes
    return root


def totals_by_kind(node: Node, into: dict[str, list[int]] | None = None) -> dict[str, list[int]]:
    """{kind: [leaves, params, bytes]} over every leaf below `node`."""
    into = {} if into is None else into
    if node.leaf is not None:
        row = into.setdefault(node.leaf.kind, [0, 0, 0])
        row[0], row[1], row[2] = row[0] + 1, row[1] + node.params, row[2] + node.nbytes
    for child in node.children.values():
        totals_by_kind(child, into)
    return into


# --- output --------------------------------------------------------------------------------------

def human_bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def _leaf_text(leaf: Leaf) -> str:
    if leaf.shape is None:
        return f"{leaf.kind} = {leaf.value}"
    dims = ",".join(str(d) for d in leaf.shape)
    sharding = f"  {leaf.sharding}" if leaf.sharding else ""
    return f"{leaf.kind} {leaf.dtype}[{dims}]{sharding}"


def _label(node: Node) -> str:
    counts = f"{node.params:,} params, {human_bytes(node.nbytes)}"
    if node.leaf is not None:
        return f"{node.name}: {_leaf_text(node.leaf)}  ({counts})"
    return f"{node.name}  ({node.leaves} leaves, {counts})"


def tree_lines(node: Node, depth: int | None) -> list[str]:
    """`node` and its subtrees drawn with `├──`/`└──`, cut after `depth` levels."""
    return [_label(node), *_child_lines(node, depth, "")]


def _child_lines(node: Node, depth: int | None, indent: str) -> list[str]:
    if depth is not None and depth <= 0:
        return [f"{indent}└── ... {len(node.children)} children not shown (--depth)"] if node.children else []
    lines, children = [], list(node.children.values())
    for i, child in enumerate(children):
        last = i == len(children) - 1
        lines.append(f"{indent}{'└── ' if last else '├── '}{_label(child)}")
        lines += _child_lines(child, None if depth is None else depth - 1, indent + ("    " if last else "│   "))
    return lines


def to_dict(node: Node, depth: int | None) -> dict[str, Any]:
    """The JSON form of `node`, cut after `depth` levels."""
    out: dict[str, Any] = {"name": node.name, "leaves": node.leaves, "params": node.params, "bytes": node.nbytes}
    if node.leaf is not None:
        out.update(kind=node.leaf.kind, shape=node.leaf.shape, dtype=node.leaf.dtype,
                   sharding=node.leaf.sharding, value=node.leaf.value)
    elif depth is None or depth > 0:
        out["children"] = [to_dict(c, None if depth is None else depth - 1) for c in node.children.values()]
    return out


def show(node: Node, depth: int | None, as_json: bool, extra: dict[str, Any] | None = None) -> None:
    """Print the tree and the totals by kind (or one JSON document)."""
    kinds = totals_by_kind(node)
    if as_json:
        print_json({**(extra or {}), "total": {"leaves": node.leaves, "params": node.params, "bytes": node.nbytes},
                    "by_kind": {k: {"leaves": v[0], "params": v[1], "bytes": v[2]} for k, v in kinds.items()},
                    "tree": to_dict(node, depth)})
        return
    print("\n".join(tree_lines(node, depth)))
    rows = [(kind, v[0], f"{v[1]:,}", human_bytes(v[2])) for kind, v in sorted(kinds.items())]
    rows.append(("total", node.leaves, f"{node.params:,}", human_bytes(node.nbytes)))
    print_table("Totals by leaf kind", ["kind", "leaves", "params", "bytes"], rows)


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
