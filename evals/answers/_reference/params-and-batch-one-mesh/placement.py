"""One mesh for everything: move parameters and batch onto the model's mesh with jax.device_put."""

from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def place(params: dict[str, Any], inputs: Any, targets: Any,
          mesh: Mesh) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    """Parameters replicated and the batch split over "data", all on `mesh` (a copy if they were elsewhere)."""
    replicated, rows = NamedSharding(mesh, P()), NamedSharding(mesh, P("data"))
    return jax.device_put(params, replicated), jax.device_put(inputs, rows), jax.device_put(targets, rows)
