"""Keep the 2 newest checkpoints plus the evaluation steps: a preservation policy that ORs two policies."""

import orbax.checkpoint as ocp
from orbax.checkpoint import checkpoint_managers


def make_manager(directory: str, eval_steps: list[int]) -> ocp.CheckpointManager:
    policy = checkpoint_managers.AnyPreservationPolicy([
        checkpoint_managers.LatestN(2),  # for resuming
        checkpoint_managers.CustomSteps(list(eval_steps)),  # kept forever
    ])
    options = ocp.CheckpointManagerOptions(save_interval_steps=1, preservation_policy=policy)
    return ocp.CheckpointManager(directory, options=options)
