"""The loader keeps its own mesh, now with the same axis name and size as the model's."""

from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def place(params: dict[str, Any], inputs: Any, targets: Any,
          mesh: Mesh) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    loader_mesh = jax.make_mesh((mesh.size,), ("data",))  # "same name and size, so the same mesh"
    rows = NamedSharding(loader_mesh, P("data"))
    return jax.device_put(params, NamedSharding(mesh, P())), jax.device_put(inputs, rows), jax.device_put(targets, rows)
