"""Restore an Orbax checkpoint straight onto a device mesh, with a PartitionSpec per array.

Orbax reads each array directly into the shards a target asks for. The target is a pytree of
``jax.ShapeDtypeStruct`` whose ``sharding`` is ``jax.NamedSharding(mesh, spec)``: no array is first
loaded onto one device. Without arrays to copy shapes from, read shapes and dtypes from the
checkpoint's metadata. A manager that did not write the step returns ``None`` from ``item_metadata``
until it is told how the item was written: ``item_handlers=ocp.StandardCheckpointHandler()`` for a
single ``StandardSave`` item.

Two targets that do *not* work:
- ``ShapeDtypeStruct``s without a sharding: each array comes back with the layout recorded at save
  time (one device), not on your mesh;
- ``jax.eval_shape`` of arrays on an Explicit-axes mesh: its shardings name an ``AbstractMesh`` and
  the restore fails with "_device_assignment is not implemented for jax.sharding.AbstractMesh".
"""

from __future__ import annotations

import pathlib

import jax
import orbax.checkpoint as ocp


def restore_sharded(
    directory: pathlib.Path,
    step: int,
    mesh: jax.sharding.Mesh,
    specs: dict[str, jax.sharding.PartitionSpec],
) -> dict[str, jax.Array]:
    """The saved dict, each array laid out as ``jax.NamedSharding(mesh, specs[name])``."""
    directory = pathlib.Path(directory).resolve()  # Orbax wants an absolute path
    with ocp.CheckpointManager(
        directory,
        item_handlers=ocp.StandardCheckpointHandler(),  # a single StandardSave item
        options=ocp.CheckpointManagerOptions(read_only=True, create=False),
    ) as manager:
        stored = manager.item_metadata(step)  # shapes and dtypes, no array is read
        if stored is None:
            raise FileNotFoundError(f"no readable checkpoint metadata for step {step} in {directory}")
        target = {
            name: jax.ShapeDtypeStruct(
                tuple(stored[name].shape),
                stored[name].dtype,  # the saved dtype: no conversion on load
                sharding=jax.NamedSharding(mesh, spec),
            )
            for name, spec in specs.items()
        }
        return manager.restore(step, args=ocp.args.StandardRestore(target))


if __name__ == "__main__":
    import os
    import tempfile

    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import jax.numpy as jnp
    import numpy as np

    params = {"w": jnp.arange(32.0).reshape(8, 4), "b": jnp.arange(4, dtype=jnp.int32)}
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp).resolve()
        with ocp.CheckpointManager(root) as writer:
            writer.save(3, args=ocp.args.StandardSave(params))
            writer.wait_until_finished()

        mesh = jax.make_mesh((4, 2), ("data", "model"))
        specs = {"w": jax.P("data", "model"), "b": jax.P()}
        placed = restore_sharded(root, 3, mesh, specs)
        for name in params:
            assert placed[name].sharding == jax.NamedSharding(mesh, specs[name])
            assert placed[name].dtype == params[name].dtype
            np.testing.assert_array_equal(np.asarray(placed[name]), np.asarray(params[name]))
        print(placed["w"].sharding.spec, placed["w"].addressable_shards[0].data.shape)  # P('data', 'model') (2, 2)
