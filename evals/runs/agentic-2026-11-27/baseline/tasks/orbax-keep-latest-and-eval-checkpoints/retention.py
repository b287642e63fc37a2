"""CheckpointManager that keeps the 2 newest checkpoints plus all evaluation steps."""
import orbax.checkpoint as ocp
from orbax.checkpoint import checkpoint_managers as ocm


def make_manager(directory: str, eval_steps: list[int]) -> ocp.CheckpointManager:
    """Save every step; keep the two newest steps and every step in eval_steps.

    Retention is a preservation policy: a step survives if *either* policy keeps
    it (the two newest steps, or a step listed in eval_steps); all other steps are
    deleted from disk as new checkpoints are saved. On a restart on the same
    directory the manager picks up the existing steps and the same policy is
    applied to them right away (and again on every later save).
    """
    eval_steps = sorted({int(s) for s in eval_steps})
    options = ocp.CheckpointManagerOptions(
        # save on every step save() is called with (no skipping)
        save_interval_steps=1,
        preservation_policy=ocm.AnyPreservationPolicy([
            ocm.LatestN(n=2),
            ocm.CustomSteps(steps=eval_steps),
        ]),
        create=True,
    )
    manager = ocp.CheckpointManager(directory, options=options)
    _apply_retention_now(manager, eval_steps)
    return manager


def _apply_retention_now(manager: ocp.CheckpointManager, eval_steps: list[int]) -> None:
    """Enforce the rule on steps already on disk (restarted job)."""
    steps = sorted(manager.all_steps())
    keep = set(steps[-2:]) | set(eval_steps)
    for step in steps:
        if step not in keep:
            manager.delete(step)
