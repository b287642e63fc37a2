"""Save a train state with CheckpointManager; restore it into an abstract target of the same structure."""

from pathlib import Path

import jax
import orbax.checkpoint as ocp


def save_state(directory: Path, step: int, state: dict) -> None:
    """Write `state` as checkpoint `step`; block until it is committed."""
    with ocp.CheckpointManager(directory) as manager:
        manager.save(step, args=ocp.args.StandardSave(state))
        manager.wait_until_finished()


def restore_latest(directory: Path, like: dict) -> tuple[int, dict]:
    """The newest step and its state, rebuilt in the structure, dtypes and shardings of `like`."""
    with ocp.CheckpointManager(directory) as manager:
        step = manager.latest_step()
        target = jax.tree.map(ocp.utils.to_shape_dtype_struct, like)  # no memory, keeps the Optax classes
        return step, manager.restore(step, args=ocp.args.StandardRestore(target))
