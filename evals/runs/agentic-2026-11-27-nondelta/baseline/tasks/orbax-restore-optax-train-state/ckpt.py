"""Save/restore a training state (params + Optax state + step) with Orbax.

Why ``manager.restore(step)`` gave you dicts and lists: on disk Orbax stores
only the *tree of arrays*; the Python classes of the nodes (Optax's
``ScaleByAdamState`` NamedTuples, tuples of states, ...) are not stored.
Restoring without a target therefore rebuilds the tree from generic
containers.  The fix is to restore *against a target*: pass the abstract
structure of a freshly initialised state (``like``) via
``ocp.args.StandardRestore``; Orbax then rebuilds exactly that pytree
(classes included) with each leaf's saved dtype, shape and bits.
"""

from __future__ import annotations

import pathlib

import jax
import numpy as np
import orbax.checkpoint as ocp


def _manager(directory: pathlib.Path) -> ocp.CheckpointManager:
    return ocp.CheckpointManager(
        pathlib.Path(directory).absolute(),
        options=ocp.CheckpointManagerOptions(create=True),
    )


def save_state(directory: pathlib.Path, step: int, state: dict) -> None:
    """Save `state` as checkpoint `step` under `directory`; return when it's on disk."""
    with _manager(directory) as manager:
        manager.save(int(step), args=ocp.args.StandardSave(state), force=True)
        # Saving is asynchronous; block until the checkpoint is finalised.
        manager.wait_until_finished()


def _abstract_leaf(x):
    # Target for one leaf: shape and dtype (and sharding for jax.Arrays), so
    # the restored leaf is a jax.Array laid out like the one in `like`.
    if isinstance(x, jax.Array):
        return jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding)
    if isinstance(x, (np.ndarray, np.generic)):
        return jax.ShapeDtypeStruct(x.shape, x.dtype)
    return x


def restore_latest(directory: pathlib.Path, like: dict) -> tuple[int, dict]:
    """Return (newest step, state saved at it), with `like`'s pytree structure."""
    with _manager(directory) as manager:
        step = manager.latest_step()
        if step is None:
            raise FileNotFoundError(f"no checkpoint found in {directory}")
        target = jax.tree.map(_abstract_leaf, like)
        restored = manager.restore(step, args=ocp.args.StandardRestore(target))
    # Orbax rebuilds the target's structure; make sure of it (e.g. Optax's
    # NamedTuple states) so that the next optimizer update works as before.
    restored = jax.tree.unflatten(jax.tree.structure(like), jax.tree.leaves(restored))
    return int(step), restored
