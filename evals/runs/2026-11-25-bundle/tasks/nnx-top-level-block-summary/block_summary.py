"""Summary of the top-level blocks of a Flax NNX model (PyTorch's named_children()).

For every attribute of the model whose value is an `nnx.Module` (an `nnx.List` / `nnx.Dict` of layers
is a module too), one row: attribute name, class name, and the number of scalars in the `nnx.Param`
Variables anywhere inside that submodule. Variables set directly on the model (a positional
embedding `nnx.Param`), numbers, strings and other values are not blocks and are skipped.
Non-Param state (BatchNorm statistics, RNG keys and counters) is not counted.

The attributes are read from the module object itself (`vars(model)`), not from a graph walk: a
graph walk such as `nnx.iter_modules` / `nnx.iter_children` visits a shared object once, whereas
here a submodule stored under two attribute names must appear under both. Within one submodule,
`nnx.state(block, nnx.Param)` lists each Variable once, so a layer shared inside a block is counted
once.

    for name, cls, n in block_summary(model):
        print(f"{name:<20} {cls:<20} {n:>12,}")
"""

import math

from flax import nnx


def _param_count(module: nnx.Module) -> int:
    """Number of scalars in the nnx.Param Variables inside `module` (nested modules included)."""
    return sum(math.prod(param[...].shape) for _, param in nnx.to_flat_state(nnx.state(module, nnx.Param)))


def block_summary(model: nnx.Module) -> list[tuple[str, str, int]]:
    """[(attribute name, class name, Param scalar count)] for each direct submodule, sorted by name.

    Attributes holding Variables, numbers or other non-module values are left out; a submodule stored
    under two attribute names is listed under both.
    """
    rows = [
        (name, type(value).__name__, _param_count(value))
        for name, value in vars(model).items()
        if isinstance(value, nnx.Module)
    ]
    return sorted(rows, key=lambda row: row[0])
