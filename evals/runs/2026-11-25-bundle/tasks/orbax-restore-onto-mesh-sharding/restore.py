"""Restore a CheckpointManager checkpoint straight onto a 2-D mesh with given PartitionSpecs.

Orbax reads each array directly into the shards you ask for when the restore target is a pytree of
`jax.ShapeDtypeStruct`s carrying a `sharding`: nothing is first gathered on one device. Without a
sharding in the target, each array would come back with the layout recorded at save time (one
device). A target built with `jax.eval_shape` is no good either: its shardings name an AbstractMesh,
which has no devices.

You have no arrays to take shapes and dtypes from, so read them from the checkpoint's metadata. A
manager that did not write the step does not know how its item was written: tell it with
`item_handlers=ocp.StandardCheckpointHandler()` (a single StandardSave item), otherwise
`item_metadata(step)` returns None.
"""

import pathlib

import jax
import orbax.checkpoint as ocp


def restore_sharded(
    directory: pathlib.Path,
    step: int,
    mesh: jax.sharding.Mesh,
    specs: dict[str, jax.sharding.PartitionSpec],
) -> dict[str, jax.Array]:
    """The flat dict saved at `step`, each array laid out as NamedSharding(mesh, specs[name])."""
    with ocp.CheckpointManager(
        pathlib.Path(directory),
        item_handlers=ocp.StandardCheckpointHandler(),
        options=ocp.CheckpointManagerOptions(read_only=True),
    ) as reader:
        stored = reader.item_metadata(step)  # shapes and dtypes as saved
        missing = set(specs) - set(stored)
        if missing:
            raise KeyError(f"checkpoint step {step} has no arrays named {sorted(missing)}")
        target = {
            name: jax.ShapeDtypeStruct(
                stored[name].shape,
                stored[name].dtype,  # keep the saved dtype (a different dtype here would convert)
                sharding=jax.NamedSharding(mesh, spec),
            )
            for name, spec in specs.items()
        }
        restored = reader.restore(step, args=ocp.args.StandardRestore(target))
    return dict(restored)
