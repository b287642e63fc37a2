"""Save and restore a training state (params, Optax state, step) bit for bit with Orbax.

Why `manager.restore(step)` gave you dicts and lists: without a target, Orbax rebuilds the tree from
what the checkpoint records, and the checkpoint does not record Python classes. Adam's
`ScaleByAdamState` comes back as a dict, `(ScaleByAdamState, EmptyState)` as a list, and the next
`tx.update` fails (`AttributeError: 'dict' object has no attribute 'mu'`).

The fix: restore into a target with the structure you want. `like` (a freshly initialised state from
the same code) provides it; it is turned into `jax.ShapeDtypeStruct`s (shape, dtype and the live
arrays' sharding), so Orbax rebuilds exactly the saved tree, Optax's NamedTuples included, with the
saved dtypes and bits.
"""

import pathlib

import jax
import numpy as np
import orbax.checkpoint as ocp


def _abstract(leaf):
    """A ShapeDtypeStruct for one leaf of `like`, keeping the sharding of live jax arrays."""
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    if isinstance(leaf, jax.Array):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
    arr = np.asarray(leaf)
    return jax.ShapeDtypeStruct(arr.shape, arr.dtype)


def save_state(directory: pathlib.Path, step: int, state: dict) -> None:
    """Write `state` as checkpoint `step` under `directory`; returns once it is committed on disk."""
    with ocp.CheckpointManager(pathlib.Path(directory)) as manager:
        step = int(step)
        if step in manager.all_steps():
            manager.delete(step)  # overwrite: save() refuses (or, forced, raises) on an existing step
        # force=True: write this step even if it is not above the newest one already on disk.
        manager.save(step, args=ocp.args.StandardSave(state), force=True)
        manager.wait_until_finished()  # the save is asynchronous: block until the step is committed


def restore_latest(directory: pathlib.Path, like: dict) -> tuple[int, dict]:
    """The newest step in `directory` and the state saved at it, with the pytree structure of `like`
    (Optax state classes included) and the saved dtypes and values."""
    with ocp.CheckpointManager(
        pathlib.Path(directory), options=ocp.CheckpointManagerOptions(read_only=True)
    ) as manager:
        step = manager.latest_step()
        if step is None:
            raise FileNotFoundError(f"No finished checkpoint in {directory}")
        target = jax.tree.map(_abstract, like)
        restored = manager.restore(step, args=ocp.args.StandardRestore(target))
    return int(step), restored
