"""Copy a parameter pytree onto a list of devices, pmap style: a leading device axis, copy i on devices[i].

`jax.device_put_replicated(tree, devices)` used to do this; it was removed in jax 0.10 (the attribute
lookup raises AttributeError "... is deprecated; use jax.device_put instead"). The replacement builds
the same layout explicitly: a 1-D mesh over exactly the given devices, in the given order, and an array
of shape (len(devices), *leaf.shape) whose leading axis is split over that mesh, so slice i is one
buffer on devices[i]. That is the layout `jax.pmap(..., devices=devices)` consumes without moving data.

Each device gets its own copy of the leaf directly (one transfer per device, as the old helper did);
the stacked (len(devices), ...) array is never materialised on a single device, so replicating large
parameters does not need len(devices) times their size on one accelerator.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

_AXIS = "devices"


def replicate(tree, devices: Sequence[jax.Device]):
    """Same structure as `tree`; each leaf becomes a jax.Array of shape (len(devices), *leaf.shape)
    whose slice i equals the leaf and lives on devices[i]."""
    devices = list(devices)
    if not devices:
        raise ValueError("replicate needs at least one device")
    if len(set(devices)) != len(devices):
        raise ValueError(f"devices must be distinct, got {devices}")
    # jax.sharding.Mesh keeps the order it is given (jax.make_mesh may reorder for the topology).
    mesh = Mesh(np.array(devices, dtype=object), (_AXIS,))
    stacked = NamedSharding(mesh, P(_AXIS))

    def copy_leaf(leaf):
        if not isinstance(leaf, jax.Array):
            leaf = np.asarray(leaf)  # NumPy arrays and scalars; dtype conversion follows jax's x64 setting
        with_axis = leaf[None]  # (1, *shape): one slice of the stacked array
        shards = [jax.device_put(with_axis, device) for device in devices]
        return jax.make_array_from_single_device_arrays((len(devices),) + tuple(leaf.shape), stacked, shards)

    return jax.tree.map(copy_leaf, tree)


if __name__ == "__main__":
    devices = jax.devices()
    params = {"w": np.arange(6.0, dtype=np.float32).reshape(2, 3), "b": jax.numpy.ones(3), "step": np.int32(7)}
    out = replicate(params, devices)
    n = len(devices)
    assert out["w"].shape == (n, 2, 3) and out["b"].shape == (n, 3) and out["step"].shape == (n,)
    for leaf, original in [(out["w"], params["w"]), (out["b"], params["b"]), (out["step"], params["step"])]:
        by_device = {shard.device: shard for shard in leaf.addressable_shards}
        for i, device in enumerate(devices):
            shard = by_device[device]
            assert (shard.index[0].start or 0) == i and shard.data.shape[0] == 1  # slice i on devices[i]
            np.testing.assert_array_equal(np.asarray(shard.data)[0], np.asarray(original))

    summed = jax.pmap(lambda p: jax.tree.map(lambda v: v * 2, p), devices=devices)(out)
    np.testing.assert_array_equal(np.asarray(summed["w"][0]), 2 * params["w"])

    reversed_out = replicate(params, devices[::-1])  # any order, any subset
    assert {s.device for s in reversed_out["w"].addressable_shards if not s.index[0].start} == {devices[-1]}
    print("ok:", {k: v.shape for k, v in out.items()})
