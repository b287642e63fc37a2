"""Count array elements per Variable type: the leaves of nnx.state(model) are the Variables themselves."""

import numpy as np
from flax import nnx


def count_by_type(model: nnx.Module) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, variable in nnx.to_flat_state(nnx.state(model)):
        name = type(variable).__name__
        counts[name] = counts.get(name, 0) + int(np.size(variable.get_value()))
    return counts
