"""An abstract target with shapes and dtypes but no shardings: the arrays keep their saved layout."""

from pathlib import Path

import jax
import orbax.checkpoint as ocp


def restore_sharded(directory: Path, step: int, mesh: jax.sharding.Mesh,
                    specs: dict[str, jax.sharding.PartitionSpec]) -> dict[str, jax.Array]:
    with ocp.CheckpointManager(directory, item_handlers=ocp.StandardCheckpointHandler()) as manager:
        metadata = manager.item_metadata(step)
        target = {name: jax.ShapeDtypeStruct(metadata[name].shape, metadata[name].dtype) for name in specs}
        return manager.restore(step, args=ocp.args.StandardRestore(target))
