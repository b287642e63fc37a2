"""Put the parameters and the batch on ONE mesh: the model's.

Arrays that meet in one ``jit`` must live on the same mesh. With Explicit axes (the default of
``jax.make_mesh``) a second mesh with another axis name raises "Mesh for all inputs should be equal";
renaming its axis to "data" is not enough, because ``jax.make_mesh`` orders the devices its own way
while the model's mesh uses a hardware-specific order, and the same axis name over another device
order raises "Received incompatible devices for jitted computation".

Fix: build no mesh in the loader. Take the model's mesh and ``jax.device_put`` everything onto it:
``NamedSharding(mesh, P())`` (replicated) for the parameters, ``NamedSharding(mesh, P("data"))``
(leading axis split over "data") for inputs and targets. ``device_put`` accepts NumPy arrays and
``jax.Array``s already placed on another mesh (it moves them; no host round trip is needed).
"""

from __future__ import annotations

from typing import Any

import jax
from jax.sharding import NamedSharding, PartitionSpec as P


def place(
    params: dict[str, Any], inputs: Any, targets: Any, mesh: jax.sharding.Mesh
) -> tuple[dict[str, jax.Array], jax.Array, jax.Array]:
    """Parameters replicated on ``mesh``; inputs and targets split over "data" on their leading axis."""
    replicated = NamedSharding(mesh, P())
    batch_split = NamedSharding(mesh, P("data"))  # leading axis over "data", the rest whole
    placed_params = jax.tree.map(lambda leaf: jax.device_put(leaf, replicated), params)
    return placed_params, jax.device_put(inputs, batch_split), jax.device_put(targets, batch_split)


if __name__ == "__main__":
    import os

    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import AxisType

    # The model's mesh: its own device order (here reversed), Explicit axis "data".
    model_mesh = jax.sharding.Mesh(np.array(jax.devices()[::-1]), ("data",), axis_types=(AxisType.Explicit,))
    loader_mesh = jax.make_mesh((8,), ("batch",))  # the loader's own mesh

    params = {"w": np.ones((16, 4), np.float32), "b": np.zeros((4,), np.float32)}
    x = jax.device_put(np.ones((64, 16), np.float32), NamedSharding(loader_mesh, P("batch")))
    y = np.zeros((64, 4), np.float32)

    p, xb, yb = place(params, x, y, model_mesh)

    @jax.jit
    def loss(p, x, y):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    print(float(loss(p, xb, yb)), xb.sharding.spec, p["w"].sharding.spec)
