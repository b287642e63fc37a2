"""Count the scalars a Flax NNX model holds, per Variable type.

`nnx.state(model)` collects every Variable of the model (Params, BatchStats, RNG state, your own
`nnx.Variable` subclasses), each Variable once even when it is shared by several submodules, under
its path. In flax 0.12 the leaves of a State are the Variable objects themselves, so `type(variable)`
is the Variable class (nnx.Param, nnx.BatchStat, ...). `nnx.to_flat_state` lists them as
(path, Variable) pairs.

    counts = count_by_type(model)
    # e.g. {"Param": 1_234_567, "BatchStat": 512, "RngKey": 1, "RngCount": 1, "EMAStat": 64}

Only the types present appear. Models that use Dropout or keep an nnx.Rngs also hold RNG state
(`RngKey` / `RngCount`, one scalar each per stream); filter those names out of the result if the
summary should show only learned and statistical state.
"""

import math

import numpy as np
from flax import nnx


def _num_elements(value) -> int:
    """Number of array elements in a Variable's value (a typed PRNG key array counts its keys)."""
    shape = value.shape if hasattr(value, "shape") else np.shape(value)
    return math.prod(shape)


def count_by_type(model: nnx.Module) -> dict[str, int]:
    """Map each Variable class name found in `model`'s state to the total number of elements held.

    Args:
        model: any Flax NNX module (nested modules, nnx.List / nnx.Dict entries included).

    Returns:
        {class name: total scalars}, e.g. {"Param": ..., "BatchStat": ...}. Types the model does not
        hold are absent.
    """
    counts: dict[str, int] = {}
    for _path, variable in nnx.to_flat_state(nnx.state(model)):
        value = variable.get_value()
        if value is None:
            continue
        name = type(variable).__name__
        counts[name] = counts.get(name, 0) + _num_elements(value)
    return counts
