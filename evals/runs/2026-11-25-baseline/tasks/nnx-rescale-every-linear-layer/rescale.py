"""PyTorch ``model.apply(fn)``-style custom initialisation for every nnx.Linear in an NNX model.

``nnx.iter_graph(model)`` walks the whole object graph (attributes, nnx.List / list / dict entries,
nested modules) and yields ``(path, node)`` pairs, where a path is the tuple of attribute names and
list indices leading to the node. A node reachable through several attributes (a shared layer) is
yielded only once; an extra identity check below makes that guarantee explicit. The selected layers
are modified in place by assigning new values to their Variables.
"""

from __future__ import annotations

import jax.numpy as jnp
from flax import nnx


def _path_entry(key):
    # Graph paths use attribute names (str) and sequence indices (int); normalise other key types.
    for attr in ("key", "name", "idx"):
        if hasattr(key, attr):
            return getattr(key, attr)
    return key


def rescale_linear_layers(model: nnx.Module, kernel_scale: float) -> list[tuple]:
    """kernel <- kernel * kernel_scale and bias <- 0 for every nnx.Linear (each exactly once).

    Returns the path of each changed layer, e.g. ("blocks", 0, "proj").
    """
    seen: set[int] = set()
    targets: list[tuple[tuple, nnx.Linear]] = []
    for path, node in nnx.iter_graph(model):
        if isinstance(node, nnx.Linear) and id(node) not in seen:
            seen.add(id(node))
            targets.append((tuple(_path_entry(k) for k in path), node))

    changed = []
    for path, layer in targets:
        layer.kernel.value = layer.kernel.value * jnp.asarray(kernel_scale, layer.kernel.value.dtype)
        bias = getattr(layer, "bias", None)
        if isinstance(bias, nnx.Variable) and bias.value is not None:
            bias.value = jnp.zeros_like(bias.value)
        changed.append(path)
    return changed
