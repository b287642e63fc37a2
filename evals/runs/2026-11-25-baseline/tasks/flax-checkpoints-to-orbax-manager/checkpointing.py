"""Save and restore the training state with Orbax's CheckpointManager.

Replaces the old ``flax.training.checkpoints`` module:

* ``ocp.CheckpointManager`` with ``max_to_keep=3`` keeps only the 3 most recent steps (older step
  directories are deleted when a new one is written).
* ``save`` waits until the (asynchronous) write has finished and closes the manager, so the checkpoint
  is complete and committed on disk when it returns.
* ``restore_latest`` restores with ``like`` as the target: Orbax then restores every leaf with the
  dtype (the bfloat16 param stays bfloat16), shape and sharding of the corresponding leaf of ``like``,
  into the same pytree structure (optax's NamedTuple states are rebuilt as such), so the optimizer can
  keep using the result.

Nothing is cached between calls; a fresh manager is opened on ``directory`` each time, so
``restore_latest`` works in a new process.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp

MAX_TO_KEEP = 3


def _manager(directory: str) -> ocp.CheckpointManager:
    options = ocp.CheckpointManagerOptions(max_to_keep=MAX_TO_KEEP, create=True)
    # Orbax requires an absolute path.
    return ocp.CheckpointManager(os.path.abspath(os.fspath(directory)), options=options)


def save(directory: str, step: int, state) -> None:
    """Write `state` as checkpoint `step` under `directory`, keeping the 3 most recent steps."""
    step = int(step)
    mngr = _manager(directory)
    try:
        if step in mngr.all_steps():
            # flax's save_checkpoint(overwrite=True) replaced an existing step; do the same.
            mngr.delete(step)
        mngr.save(step, args=ocp.args.StandardSave(state), force=True)
        mngr.wait_until_finished()  # the checkpoint is complete when save returns
    finally:
        mngr.close()


def _match_leaf_type(ref, value):
    """Give a restored leaf the container type of the reference leaf from `like`."""
    if isinstance(ref, (bool, np.bool_)) and not isinstance(ref, np.ndarray):
        return bool(np.asarray(value))
    if isinstance(ref, int) and not isinstance(ref, bool):
        return int(np.asarray(value))
    if isinstance(ref, float):
        return float(np.asarray(value))
    if isinstance(ref, jax.Array) and not isinstance(value, jax.Array):
        return jax.device_put(np.asarray(value, dtype=ref.dtype), ref.sharding)
    if isinstance(ref, np.ndarray) and not isinstance(value, np.ndarray):
        return np.asarray(value, dtype=ref.dtype)
    if hasattr(ref, "dtype") and hasattr(value, "dtype") and value.dtype != ref.dtype:
        return value.astype(ref.dtype)
    return value


def _restore_target(like):
    """Abstract target: shape/dtype/sharding of every array leaf of `like`; scalars kept as is."""
    def to_target(x):
        if isinstance(x, jax.Array):
            return jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding)
        return x
    return jax.tree_util.tree_map(to_target, like)


def restore_latest(directory: str, like):
    """Return (step, state) of the newest checkpoint, restored with the structure/dtypes of `like`."""
    mngr = _manager(directory)
    try:
        step = mngr.latest_step()
        if step is None:
            raise FileNotFoundError(f"No checkpoint found in {directory!r}")
        restored = mngr.restore(step, args=ocp.args.StandardRestore(_restore_target(like)))
    finally:
        mngr.close()

    # Rebuild exactly like's pytree structure (NamedTuple optimizer states, dict params, ...) and leaf
    # types (e.g. a Python int step counter stays a Python int).
    treedef = jax.tree_util.tree_structure(like)
    ref_leaves = jax.tree_util.tree_leaves(like)
    new_leaves = jax.tree_util.tree_leaves(restored)
    if len(ref_leaves) != len(new_leaves):
        raise ValueError("Checkpoint structure does not match `like`.")
    state = jax.tree_util.tree_unflatten(
        treedef, [_match_leaf_type(r, v) for r, v in zip(ref_leaves, new_leaves)])
    return int(step), state
