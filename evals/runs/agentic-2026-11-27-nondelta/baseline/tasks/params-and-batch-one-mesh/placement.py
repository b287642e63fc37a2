"""Place parameters and a batch on the model's mesh.

Both errors come from the batch living on a *different* mesh than the
parameters.  A mesh is its axis names *and* its device order: the loader's
``jax.make_mesh((8,), ("batch",))`` differs from the model's mesh by name
("Mesh for all inputs should be equal"), and after renaming still by device
order ("incompatible devices").  Don't build a second mesh in the loader: put
everything on the one mesh the model built, with ``NamedSharding`` over that
mesh.  ``jax.device_put`` accepts NumPy arrays and jax.Arrays on any
sharding, and moves/reshards them as needed.
"""

from __future__ import annotations

from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def place(
    params: dict[str, Any], inputs: Any, targets: Any, mesh: Mesh
) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    """Params replicated on `mesh`; inputs/targets split over "data" on axis 0."""
    replicated = NamedSharding(mesh, P())
    batch_sharded = NamedSharding(mesh, P("data"))
    params = jax.tree.map(lambda a: jax.device_put(a, replicated), params)
    inputs = jax.device_put(inputs, batch_sharded)
    targets = jax.device_put(targets, batch_sharded)
    return params, inputs, targets
