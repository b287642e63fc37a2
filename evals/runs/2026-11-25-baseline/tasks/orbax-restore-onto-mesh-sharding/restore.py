"""Restore an Orbax checkpoint directly onto a device mesh.

Orbax restores each array with whatever sharding the *target* asks for, and every process reads
only the shards its devices need, so nothing is first gathered on one device. The target does not
need the arrays, only an abstract tree of `jax.ShapeDtypeStruct(shape, dtype, sharding=...)`:
the shapes and dtypes come from the checkpoint's own metadata, the shardings from the mesh and your
PartitionSpecs.
"""

import pathlib
from collections.abc import Mapping

import jax
import orbax.checkpoint as ocp
from jax.sharding import NamedSharding, PartitionSpec

_DEFAULT_ITEM = "default"  # item name a single-item CheckpointManager saves under


def _unwrap(metadata, names):
    """Reduce the metadata wrappers of the various Orbax versions to {name: ArrayMetadata}."""
    if metadata is None:
        return None
    if hasattr(metadata, "item_metadata"):  # StepMetadata
        metadata = metadata.item_metadata
    if hasattr(metadata, "tree") and not isinstance(metadata, Mapping):  # TreeMetadata
        metadata = metadata.tree
    if isinstance(metadata, Mapping) and _DEFAULT_ITEM in metadata and _DEFAULT_ITEM not in names:
        metadata = _unwrap(metadata[_DEFAULT_ITEM], names)  # keyed by item name
    return metadata


def _shapes_and_dtypes(metadata, names):
    metadata = _unwrap(metadata, names)
    try:
        return {n: (tuple(metadata[n].shape), metadata[n].dtype) for n in names}
    except Exception:
        return None


def _saved_shapes_and_dtypes(manager, directory, step, names):
    try:
        found = _shapes_and_dtypes(manager.item_metadata(step), names)
    except Exception:
        found = None
    if found is None:  # read the item's metadata directly: <directory>/<step>/default
        item_dir = pathlib.Path(directory) / str(step) / _DEFAULT_ITEM
        found = _shapes_and_dtypes(ocp.StandardCheckpointer().metadata(item_dir), names)
    if found is None:
        raise ValueError(f"could not read array metadata of step {step} in {directory}")
    return found


def restore_sharded(
    directory: pathlib.Path,
    step: int,
    mesh: jax.sharding.Mesh,
    specs: dict[str, PartitionSpec],
) -> dict[str, jax.Array]:
    """The saved dict, each array restored as NamedSharding(mesh, specs[name])."""
    directory = pathlib.Path(directory)
    manager = ocp.CheckpointManager(directory)
    try:
        saved = _saved_shapes_and_dtypes(manager, directory, step, list(specs))
        target = {
            name: jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(mesh, specs[name]))
            for name, (shape, dtype) in saved.items()
        }
        restored = manager.restore(step, args=ocp.args.StandardRestore(target))
    finally:
        manager.close()
    return {name: restored[name] for name in specs}


if __name__ == "__main__":
    import tempfile

    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import PartitionSpec as P

    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        arrays = {"w": jnp.arange(32.0).reshape(8, 4), "b": jnp.arange(4, dtype=jnp.int32)}
        mngr = ocp.CheckpointManager(d)
        mngr.save(0, args=ocp.args.StandardSave(arrays))
        mngr.wait_until_finished()
        mngr.close()
        n = len(jax.devices())
        shape = (n // 2, 2) if n % 2 == 0 else (n, 1)
        mesh = jax.make_mesh(shape, ("x", "y"))
        out = restore_sharded(d, 0, mesh, {"w": P("x", "y"), "b": P()})
        for k, v in out.items():
            print(k, v.dtype, v.sharding, np.array_equal(v, arrays[k]))
