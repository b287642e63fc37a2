"""Custom initialisation of every nnx.Linear in a Flax NNX model, in place (PyTorch's model.apply(fn)).

`nnx.iter_modules(model)` walks the whole module graph (attributes, nested modules, nnx.List /
nnx.Dict entries) and yields `(path, module)` pairs, the model itself last with path `()`. A path is
a tuple of attribute names and list indices, e.g. ("blocks", 0, "proj"). The walk follows the object
graph, so a layer reachable from two attributes is one object; it is yielded once (under the first
path the walk reaches), and the `id` set below guarantees it is changed only once even so. (Use the
function `nnx.iter_modules(model)`; the method `model.iter_modules()` is deprecated in flax 0.12.)

Writes go through `variable[...] = new`, which updates the Variable in place, so every attribute that
refers to a shared layer sees the new values. (`.value` is deprecated.)

    changed = rescale_linear_layers(model, kernel_scale=0.5)
    # [("blocks", 0, "proj"), ("blocks", 1, "proj"), ("head",), ...]

Call it eagerly, after construction and outside jit, as a one-off initialisation step.
"""

import jax.numpy as jnp
from flax import nnx


def rescale_linear_layers(model: nnx.Module, kernel_scale: float) -> list[tuple]:
    """Multiply every nnx.Linear kernel by `kernel_scale` and zero its bias (if any), in place.

    Every nnx.Linear inside `model` (nested modules, nnx.List entries, `model` itself if it is one)
    is visited exactly once, even when it is reachable from several attributes. Other modules are
    untouched.

    Returns:
        The path of each changed layer, a tuple of attribute names and list indices such as
        ("blocks", 0, "proj"); `()` if `model` itself is an nnx.Linear.
    """
    changed: list[tuple] = []
    seen: set[int] = set()
    for path, module in nnx.iter_modules(model):
        if not isinstance(module, nnx.Linear) or id(module) in seen:
            continue
        seen.add(id(module))

        kernel = module.kernel[...]
        module.kernel[...] = kernel * jnp.asarray(kernel_scale, dtype=kernel.dtype)
        bias = getattr(module, "bias", None)
        if bias is not None:  # nnx.Linear(..., use_bias=False) has bias None
            bias[...] = jnp.zeros_like(bias[...])
        changed.append(tuple(path))
    return changed
