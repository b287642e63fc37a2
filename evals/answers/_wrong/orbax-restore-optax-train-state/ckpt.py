"""Restore without a target: Orbax rebuilds the tree from the checkpoint's own record of it."""

from pathlib import Path

import orbax.checkpoint as ocp


def save_state(directory: Path, step: int, state: dict) -> None:
    with ocp.CheckpointManager(directory) as manager:
        manager.save(step, args=ocp.args.StandardSave(state))
        manager.wait_until_finished()


def restore_latest(directory: Path, like: dict) -> tuple[int, dict]:
    with ocp.CheckpointManager(directory) as manager:
        step = manager.latest_step()
        return step, manager.restore(step)
