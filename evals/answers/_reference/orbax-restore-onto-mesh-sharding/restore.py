"""Restore onto a mesh: a target of ShapeDtypeStructs that carry the wanted shardings."""

from pathlib import Path

import jax
import orbax.checkpoint as ocp


def restore_sharded(directory: Path, step: int, mesh: jax.sharding.Mesh,
                    specs: dict[str, jax.sharding.PartitionSpec]) -> dict[str, jax.Array]:
    """Shapes and dtypes from the checkpoint's metadata, layout from (mesh, specs); Orbax reads each shard."""
    # A new manager returns item_metadata None until it knows the item's handler.
    with ocp.CheckpointManager(directory, item_handlers=ocp.StandardCheckpointHandler()) as manager:
        metadata = manager.item_metadata(step)
        target = {
            name: jax.ShapeDtypeStruct(metadata[name].shape, metadata[name].dtype,
                                       sharding=jax.NamedSharding(mesh, spec))
            for name, spec in specs.items()
        }
        return manager.restore(step, args=ocp.args.StandardRestore(target))
