"""Copy a parameter pytree onto a list of devices, pmap-style: a leading device axis, copy i on devices[i].

`jax.device_put_replicated` was removed (jax 0.10.0). The replacement builds each leaf as one global
jax.Array of shape (len(devices), *leaf.shape), sharded along its leading axis over a 1-D mesh of the
given devices in the given order, so slice i is a single-device buffer on devices[i]. Each copy is
transferred straight to its device (no (n, ...) stack is built on the host or on one device first).
jax.pmap(..., devices=devices) (jit + shard_map in jax 0.12) consumes it without moving data.
"""

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

_AXIS = "devices"


def replicate(tree, devices: list[jax.Device]):
    """Same structure as `tree`; each leaf becomes (len(devices), *leaf.shape), slice i on devices[i]."""
    devices = list(devices)
    if not devices:
        raise ValueError("devices must not be empty")
    if len(set(devices)) != len(devices):
        raise ValueError(f"devices must be distinct, got {devices}")
    sharding = NamedSharding(Mesh(np.array(devices, dtype=object), (_AXIS,)), P(_AXIS))

    def copy_leaf(leaf):
        if not isinstance(leaf, jax.Array):
            leaf = np.asarray(leaf)
        one = leaf[None]  # (1, *shape): the block each device holds
        shards = [jax.device_put(one, device) for device in devices]
        return jax.make_array_from_single_device_arrays((len(devices), *leaf.shape), sharding, shards)

    return jax.tree.map(copy_leaf, tree)
