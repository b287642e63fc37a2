"""Count the scalars a Flax NNX model holds, per Variable type.

``nnx.state(model)`` collects every Variable reachable from the model exactly once (shared Variables
are not double counted). Its leaves, taken with an ``is_leaf`` that stops at Variables, are the
Variables themselves (or, on older Flax, ``VariableState`` objects that record the Variable type in
``.type``), so the Variable class (Param, BatchStat, RngKey, your own subclasses, ...) and the value it
holds are both available.
"""

from __future__ import annotations

from collections import defaultdict

import jax
import numpy as np
from flax import nnx

_VariableState = getattr(nnx, "VariableState", None)


def _is_variable_like(x) -> bool:
    if isinstance(x, nnx.Variable):
        return True
    return _VariableState is not None and isinstance(x, _VariableState)


def _variable_type(v) -> type:
    if isinstance(v, nnx.Variable):
        return type(v)
    return v.type  # VariableState (older Flax) records the Variable class here


def _value_of(v):
    if hasattr(v, "get_value"):
        try:
            return v.get_value()
        except TypeError:
            pass
    return v.value


def _num_elements(value) -> int:
    total = 0
    for leaf in jax.tree_util.tree_leaves(value):
        size = getattr(leaf, "size", None)
        total += int(size) if size is not None else int(np.size(leaf))
    return total


def count_by_type(model: nnx.Module) -> dict[str, int]:
    """Map Variable class name -> total number of array elements held by Variables of that type."""
    counts: dict[str, int] = defaultdict(int)
    state = nnx.state(model)
    variables = [
        leaf
        for leaf in jax.tree_util.tree_leaves(state, is_leaf=_is_variable_like)
        if _is_variable_like(leaf)
    ]
    if not variables and jax.tree_util.tree_leaves(state):
        # Fallback: walk the object graph directly (each Variable object is visited once).
        seen: set[int] = set()
        for _, node in nnx.iter_graph(model):
            if isinstance(node, nnx.Variable) and id(node) not in seen:
                seen.add(id(node))
                variables.append(node)
    for var in variables:
        counts[_variable_type(var).__name__] += _num_elements(_value_of(var))
    return dict(counts)
