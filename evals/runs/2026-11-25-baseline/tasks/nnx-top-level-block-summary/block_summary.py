"""Summary of the top-level building blocks of a Flax NNX model (like torch's named_children()).

    >>> for name, cls, n in block_summary(model):
    ...     print(f"{name:<20} {cls:<20} {n:>12,}")

Only attributes of the model itself whose value is an ``nnx.Module`` are listed; their parameter
count includes everything nested inside them. Variables set directly on the model (e.g. an
``nnx.Param`` positional embedding), numbers and other values are not blocks. A submodule stored
under two attribute names appears under both names. Only ``nnx.Param`` scalars are counted
(BatchNorm running statistics, RNG state, etc. are not).
"""

from __future__ import annotations

import math

import jax
from flax import nnx

__all__ = ["block_summary"]


def _leaf_size(leaf) -> int:
    value = getattr(leaf, "value", leaf)  # unwrap a Variable if the tree yields one
    shape = getattr(value, "shape", None)
    if shape is None:  # Python scalar
        return 1
    return int(math.prod(shape))


def _count_params(module: nnx.Module) -> int:
    """Total number of scalars in the nnx.Param variables inside ``module`` (nested included).

    ``nnx.state`` walks the module graph once per Variable, so a parameter shared by two layers
    inside the same block is counted once.
    """
    params = nnx.state(module, nnx.Param)
    return sum(_leaf_size(leaf) for leaf in jax.tree_util.tree_leaves(params))


def block_summary(model: nnx.Module) -> list[tuple[str, str, int]]:
    """[(attribute name, class name, #Param scalars in that submodule)], sorted by name."""
    rows: list[tuple[str, str, int]] = []
    # vars(model) holds the model's own attributes only (not those of nested modules); NNX's
    # internal bookkeeping attributes are not Modules, so the isinstance filter drops them,
    # together with Variables (nnx.Param on the model), numbers and other values.
    for name, value in vars(model).items():
        if isinstance(value, nnx.Module):
            rows.append((name, type(value).__name__, _count_params(value)))
    rows.sort(key=lambda row: row[0])
    return rows
