# /// script
# requires-python = ">=3.12"
# dependencies = ["jax==0.12.0.1"]
# ///
"""The pytree table that pytree_visualizer.py and checkpoint_manager.py print: a tree of leaves (shape,
dtype, sharding, parameter count, bytes), summed per subtree and per leaf kind, as text or JSON.

`build_tree(pytree)` reads arrays, `jax.ShapeDtypeStruct`s and Orbax array metadata alike; `show`
prints the tree. Both tools import it from here, so neither imports the other's module at load time.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Any

from _cli import print_json, print_table


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
