"""Restart after a job was killed in the middle of an Orbax save.

How Orbax marks an unfinished checkpoint: a step is written into `<step>.orbax-checkpoint-tmp/` and
renamed to `<step>/` only once complete (on GCS, which has no atomic rename, a `commit_success.txt`
marks it instead). `latest_step()` / `all_steps()` only see finished steps, so a half-written step is
never restored: resuming from `latest_step()` is already safe.

The leftovers themselves are removed by `CheckpointManagerOptions(cleanup_tmp_directories=True)`: the
manager starts deleting them when it is created and finishes before its first save completes. (The
old helper `ocp.utils.cleanup_tmp_directories` no longer exists.)

The state is restored into an abstract target built from `target` (shapes, dtypes, shardings), so it
comes back with `target`'s pytree structure (Optax NamedTuples, etc.) rather than as nested dicts.
"""

import os

import jax
import numpy as np
import orbax.checkpoint as ocp


def _absolute(directory: str) -> str:
    """Orbax needs an absolute path; leave remote paths (gs://...) alone."""
    return directory if "://" in str(directory) else os.path.abspath(directory)


def _abstract(leaf):
    """ShapeDtypeStruct for one leaf of the target, keeping a live array's sharding."""
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    if isinstance(leaf, jax.Array):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
    arr = np.asarray(leaf)
    return jax.ShapeDtypeStruct(arr.shape, arr.dtype)


def resume(directory: str, target):
    """Open the manager and load the newest finished checkpoint.

    Returns (manager, step, state), or (manager, None, None) if no finished step exists. The manager
    saves every step it is given (save(step, args=ocp.args.StandardSave(pytree))); temporary
    directories left by a killed save are gone by the time its next save has completed.
    """
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=1,  # write every step passed to save()
        cleanup_tmp_directories=True,  # delete *.orbax-checkpoint-tmp leftovers of killed saves
    )
    manager = ocp.CheckpointManager(_absolute(directory), options=options)
    step = manager.latest_step()  # finished steps only; tmp directories are never counted
    if step is None:
        return manager, None, None
    abstract_target = jax.tree.map(_abstract, target)
    state = manager.restore(step, args=ocp.args.StandardRestore(abstract_target))
    return manager, int(step), state
