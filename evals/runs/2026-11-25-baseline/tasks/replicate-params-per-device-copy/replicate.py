"""Replicate a parameter pytree pmap-style: a leading device axis with one copy per device.

This is what the removed `jax.device_put_replicated(tree, devices)` did. Each leaf becomes one
global jax.Array of shape (len(devices), *leaf.shape), sharded along its leading axis over a 1-D
mesh built from `devices` in the given order, so slice i is stored on devices[i] and nowhere else.
Only one slice is sent to each device. jax.pmap(..., devices=devices) consumes such arrays directly.
"""

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

_AXIS = "replica"


def replicate(tree, devices: list[jax.Device]):
    devices = list(devices)
    if not devices:
        raise ValueError("replicate needs at least one device")
    if len(set(devices)) != len(devices):
        raise ValueError("devices must be distinct")
    n = len(devices)
    sharding = NamedSharding(Mesh(np.array(devices), (_AXIS,)), P(_AXIS))

    def replicate_leaf(leaf):
        if isinstance(leaf, jax.Array):
            leaf = np.asarray(jax.device_get(leaf))
        else:
            leaf = np.asarray(leaf)
        # NumPy float64/int64 become float32/int32 unless x64 is enabled, as with jnp.asarray.
        leaf = leaf.astype(jax.dtypes.canonicalize_dtype(leaf.dtype), copy=False)
        # One copy per device, built per shard: device i receives exactly copy i, and no
        # (n, ...) array is materialised on the host.
        shape = (n,) + leaf.shape
        return jax.make_array_from_callback(shape, sharding, lambda index: leaf[None])

    return jax.tree.map(replicate_leaf, tree)


if __name__ == "__main__":
    import jax.numpy as jnp

    devs = jax.devices()
    params = {"w": jnp.ones((3, 2)), "b": np.zeros(2, np.float32), "scale": np.float32(2.0)}
    rep = replicate(params, devs)
    for name, leaf in rep.items():
        print(name, leaf.shape, [s.device for s in leaf.addressable_shards] == devs)
    out = jax.pmap(lambda p: p["w"].sum() * p["scale"], devices=devs)(rep)
    print(out)
