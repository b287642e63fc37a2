"""The orbax 0.11 form: max_to_keep for the latest checkpoints, should_keep_fn for the milestones."""

import orbax.checkpoint as ocp


def make_manager(directory: str, eval_steps: list[int]) -> ocp.CheckpointManager:
    milestones = set(eval_steps)
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=1,
        max_to_keep=2,
        should_keep_fn=lambda step: step in milestones,
    )
    return ocp.CheckpointManager(directory, options=options)
