"""A custom post-construction initialisation for every ``nnx.Linear`` in a Flax NNX model.

PyTorch's ``model.apply(fn)`` becomes ``nnx.iter_modules(model)``: it walks the module graph (nested
modules, ``nnx.List`` / ``nnx.Dict`` entries) and yields ``(path, module)`` for every module, ``model``
itself last with the path ``()``. Paths are tuples of attribute names and list indices, e.g.
``("blocks", 0, "proj")``. NNX walks a graph, not a tree, so a layer reachable from two attributes is
yielded once (under the first path found); the function also keeps its own set of visited layers, so a
shared layer is never scaled twice whatever the traversal does.

Writes go through ``variable[...] = new``, which replaces the array inside the model's own Variable:
every attribute that refers to a shared layer sees the change. (``.value`` is deprecated; the method
``model.iter_modules()`` is deprecated in favour of the function ``nnx.iter_modules(model)``.)

Example::

    changed = rescale_linear_layers(model, kernel_scale=0.1)
    # [('blocks', 0, 'proj'), ('blocks', 1, 'proj'), ('head',)]
"""

from __future__ import annotations

import jax.numpy as jnp
from flax import nnx


def rescale_linear_layers(model: nnx.Module, kernel_scale: float) -> list[tuple]:
    """Scale every ``nnx.Linear`` kernel in ``model`` by ``kernel_scale`` and zero its bias, in place.

    Each Linear is visited exactly once, even when shared between attributes; other modules are left
    untouched. Returns the path of each changed layer, e.g. ``("blocks", 0, "proj")`` (``()`` when
    ``model`` itself is an ``nnx.Linear``).
    """
    changed: list[tuple] = []
    seen: set[int] = set()
    for path, module in nnx.iter_modules(model):
        if not isinstance(module, nnx.Linear) or id(module) in seen:
            continue
        seen.add(id(module))

        kernel = module.kernel[...]
        module.kernel[...] = (kernel * kernel_scale).astype(kernel.dtype)
        bias = getattr(module, "bias", None)  # None when the layer was built with use_bias=False
        if bias is not None:
            bias[...] = jnp.zeros_like(bias[...])
        changed.append(tuple(path))
    return changed
