"""CheckpointManager that keeps the two newest steps plus the evaluation steps, forever.

orbax-checkpoint 0.12.8: retention is a preservation policy (`max_to_keep=` is deprecated, the
`should_keep_fn=` option is gone). AnyPreservationPolicy keeps a step when any of its policies keeps
it: LatestN(2) (the two newest steps) or CustomSteps(eval_steps). The policy runs after every
committed save, over *all* steps in the directory, including those written before a restart.

A restarted job would otherwise only prune at its first save; make_manager also applies the same
rule to the steps already on disk when it creates the manager, and `cleanup_tmp_directories=True`
removes the `<step>.orbax-checkpoint-tmp` leftovers of a save interrupted by a crash.
"""

import orbax.checkpoint as ocp

_KEEP_LATEST = 2


def make_manager(directory: str, eval_steps: list[int]) -> ocp.CheckpointManager:
    """A manager on `directory` saving every step it is given, keeping the 2 newest + eval_steps.

    Usage: mngr.save(step, args=ocp.args.StandardSave(pytree)); call mngr.wait_until_finished()
    (or mngr.close()) before exiting, as saves are asynchronous.
    """
    eval_steps = sorted({int(step) for step in eval_steps})
    policies = ocp.checkpoint_managers
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=1,  # save on every step passed to save()
        preservation_policy=policies.AnyPreservationPolicy(
            [policies.LatestN(_KEEP_LATEST), policies.CustomSteps(eval_steps)]
        ),
        cleanup_tmp_directories=True,  # leftovers of a save killed mid-write
    )
    manager = ocp.CheckpointManager(directory, options=options)

    # Restarted job: apply the same rule now to the checkpoints already there.
    existing = sorted(manager.all_steps())
    keep = set(existing[-_KEEP_LATEST:]) | set(eval_steps)
    for step in existing:
        if step not in keep:
            manager.delete(step)
    return manager
