"""Copy a parameter pytree onto a list of devices, pmap-style: a leading device axis, slice i on devices[i].

The helper that used to do this, `jax.device_put_replicated(x, devices)`, was removed in jax 0.10
(the lookup raises AttributeError: "... is deprecated; use jax.device_put instead"), and
`jax.sharding.PmapSharding` is gone too. The current way to build the same stacked layout is an array
whose leading axis is split over a 1-D mesh made of exactly the devices you pass, in that order:

    mesh     = Mesh(np.array(devices), ("devices",))      # mesh position i  <->  devices[i]
    sharding = NamedSharding(mesh, P("devices"))          # leading axis split: slice i on devices[i]

and each slice is placed directly on its device (one copy per device, nothing stacked on a single
device first), then the per-device pieces are assembled with
`jax.make_array_from_single_device_arrays`. The result has shape (len(devices), *leaf.shape), is a
normal jax.Array, and is what `jax.pmap(f, devices=devices)` expects for a mapped argument (pmap in
the current JAX is implemented on jit + shard_map over such a mesh).

The mesh axis is given the Auto type so the arrays carry no sharding in their type and mix freely
with other arrays in jit code.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import numpy as np
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P

AXIS = "devices"


def replicate(tree, devices: Sequence[jax.Device]):
    """Each leaf -> jax.Array of shape (len(devices), *leaf.shape) whose slice i equals the leaf and
    lives on devices[i]. Leaves may be NumPy arrays, JAX arrays or scalars (any shape, including ())."""
    devices = list(devices)
    if not devices:
        raise ValueError("replicate() needs at least one device")
    if len(set(devices)) != len(devices):
        raise ValueError(f"each device may appear only once, got {devices}")
    mesh = Mesh(np.array(devices, dtype=object), (AXIS,), axis_types=(AxisType.Auto,))
    sharding = NamedSharding(mesh, P(AXIS))

    def replicate_leaf(leaf):
        # a (1, *shape) copy of the leaf; JAX arrays stay on device, everything else goes via NumPy
        one = leaf[None] if isinstance(leaf, jax.Array) else np.asarray(leaf)[None]
        shards = [jax.device_put(one, device) for device in devices]  # slice i -> devices[i]
        global_shape = (len(devices),) + tuple(one.shape[1:])
        return jax.make_array_from_single_device_arrays(global_shape, sharding, shards)

    return jax.tree.map(replicate_leaf, tree)


if __name__ == "__main__":
    # Run with e.g. XLA_FLAGS=--xla_force_host_platform_device_count=8 to get several CPU devices.
    all_devices = jax.devices()
    devices = all_devices[::-1][: max(1, len(all_devices) // 2)]  # any subset, any order
    params = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.float32(0.5),
              "nested": [jax.numpy.ones(4)]}
    rep = replicate(params, devices)
    for leaf, out in zip(jax.tree.leaves(params), jax.tree.leaves(rep)):
        assert out.shape == (len(devices),) + np.shape(leaf)
        for i, device in enumerate(devices):
            (shard,) = [s for s in out.addressable_shards if s.device == device]
            assert shard.index[0] == slice(i, i + 1)
            np.testing.assert_array_equal(np.asarray(shard.data)[0], np.asarray(leaf))

    doubled = jax.pmap(lambda p: jax.tree.map(lambda v: v * 2, p), devices=devices)(rep)
    np.testing.assert_array_equal(np.asarray(doubled["w"])[0], 2 * params["w"])
    print(f"replicated onto {len(devices)} device(s): ok")
