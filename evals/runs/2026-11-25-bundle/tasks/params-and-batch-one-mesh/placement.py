"""Put parameters and the batch on one mesh: the model's.

Arrays that meet in one jitted computation must live on the same mesh. With Explicit axes (the
default of `jax.make_mesh`) a second mesh with another axis name ("batch") fails with
"Mesh for all inputs should be equal"; renaming the axis is not enough when the two meshes order the
same devices differently (the model's mesh picks its own order for the hardware, `jax.make_mesh` in
the loader another), which fails with "Received incompatible devices for jitted computation".

So build no second mesh: take the model's `mesh` and place everything with `NamedSharding`s on it.
`jax.device_put` to a new sharding moves an array that already lives on another mesh (the loader's)
device to device, and splits a host NumPy array directly into the shards.
"""

from typing import Any

import jax
from jax.sharding import NamedSharding, PartitionSpec as P


def place(
    params: dict[str, Any], inputs: Any, targets: Any, mesh: jax.sharding.Mesh
) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    """Parameters replicated on `mesh`; inputs and targets split over "data" on their leading axis.

    Every argument may be a NumPy array or a jax.Array placed on another mesh. The leading axis of
    inputs and targets must be a multiple of mesh.shape["data"] (pad the last batch otherwise).
    """
    replicated = NamedSharding(mesh, P())
    by_rows = NamedSharding(mesh, P("data"))  # leading axis over "data", the rest whole
    placed_params = jax.tree.map(lambda leaf: jax.device_put(leaf, replicated), params)
    return placed_params, jax.device_put(inputs, by_rows), jax.device_put(targets, by_rows)
