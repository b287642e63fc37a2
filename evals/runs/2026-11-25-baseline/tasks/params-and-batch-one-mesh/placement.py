"""Put parameters and batch on ONE mesh so the jitted train step accepts them.

Why both errors happened
------------------------
* jit requires all sharded inputs to be on the same mesh. The loader's mesh had a different axis
  name ("batch") -> "Mesh for all inputs should be equal".
* Renaming the axis is not enough: `jax.make_mesh((8,), ...)` picks its own device order, while the
  model's mesh uses an order chosen for the hardware. Two meshes over the same 8 devices in a
  different order are different meshes -> "Received incompatible devices for jitted computation".

The fix is to stop building a second mesh: place everything with NamedShardings of the model's mesh.
`jax.device_put` accepts NumPy arrays as well as jax.Arrays living on any other mesh/sharding, and
moves/reshards them as needed (it is a no-op for arrays already placed right).
"""

from typing import Any

import jax
from jax.sharding import NamedSharding, PartitionSpec as P


def place(params: dict[str, Any], inputs: Any, targets: Any, mesh: jax.sharding.Mesh):
    """Parameters replicated on `mesh`; inputs and targets split over "data" on the leading axis."""
    replicated = NamedSharding(mesh, P())
    batch_split = NamedSharding(mesh, P("data"))
    params = jax.tree.map(lambda leaf: jax.device_put(leaf, replicated), params)
    inputs = jax.device_put(inputs, batch_split)
    targets = jax.device_put(targets, batch_split)
    return params, inputs, targets


if __name__ == "__main__":
    import numpy as np
    from jax.sharding import AxisType, Mesh

    devices = jax.devices()
    n = len(devices)
    model_mesh = Mesh(np.array(devices[::-1]), ("data",), axis_types=(AxisType.Explicit,))
    loader_mesh = jax.make_mesh((n,), ("batch",))
    x = jax.device_put(np.ones((4 * n, 3), np.float32), NamedSharding(loader_mesh, P("batch")))
    y = np.zeros((4 * n, 2), np.float32)
    params = {"w": np.ones((3, 2), np.float32), "b": np.zeros(2, np.float32)}

    @jax.jit
    def step(params, x, y):
        return ((x @ params["w"] + params["b"] - y) ** 2).mean()

    print(step(*place(params, x, y, model_mesh)))
