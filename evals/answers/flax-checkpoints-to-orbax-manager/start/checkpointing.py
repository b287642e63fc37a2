"""Save and restore the training state with flax.training.checkpoints (2022 style)."""

from flax.training import checkpoints


def save(directory, step, state):
    """Write `state` as checkpoint `step`, keeping the 3 most recent."""
    checkpoints.save_checkpoint(directory, state, step=step, keep=3, overwrite=True)


def restore_latest(directory, like):
    """Return (step, state) of the newest checkpoint, with the structure of `like`."""
    step = int(checkpoints.latest_checkpoint(directory).rsplit("_", 1)[-1])
    return step, checkpoints.restore_checkpoint(directory, target=like)
