"""Save and restore the training state with an Orbax CheckpointManager (3 most recent kept)."""

import orbax.checkpoint as ocp

MAX_TO_KEEP = 3


def manager(directory: str) -> ocp.CheckpointManager:
    return ocp.CheckpointManager(directory, options=ocp.CheckpointManagerOptions(max_to_keep=MAX_TO_KEEP))


def save(directory: str, step: int, state) -> None:
    """Write `state` as checkpoint `step`; complete on return."""
    with manager(directory) as mngr:
        mngr.save(step, args=ocp.args.StandardSave(state))
        mngr.wait_until_finished()


def restore_latest(directory: str, like):
    """Return (step, state) of the newest checkpoint."""
    with manager(directory) as mngr:
        step = mngr.latest_step()
        return step, mngr.restore(step)
