"""Replicate a parameter pytree for pmap-style training: one copy per device."""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def replicate(tree, devices: list):
    """Give every leaf a leading device axis with one identical copy per device.

    Each leaf becomes a jax.Array of shape (len(devices), *leaf.shape) whose
    slice i equals the leaf and lives on devices[i] (this replaces the removed
    jax.device_put_replicated). The arrays are sharded along axis 0 over a
    1-D mesh built from `devices` in the given order, which is the layout
    jax.pmap(..., devices=devices) consumes without moving data.
    """
    devices = list(devices)
    if not devices:
        raise ValueError("devices must be a non-empty list")
    if len(set(devices)) != len(devices):
        raise ValueError("devices must not contain duplicates")
    n = len(devices)
    mesh = Mesh(np.array(devices, dtype=object), ("devices",))
    sharding = NamedSharding(mesh, P("devices"))

    def _replicate_leaf(leaf):
        x = jnp.asarray(leaf)
        # one (1, *shape) buffer per device, copied directly to that device
        shards = [jax.device_put(x[None], d) for d in devices]
        return jax.make_array_from_single_device_arrays((n, *x.shape), sharding, shards)

    return jax.tree.map(_replicate_leaf, tree)
