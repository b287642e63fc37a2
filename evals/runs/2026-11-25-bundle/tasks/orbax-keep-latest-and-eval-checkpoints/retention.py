"""CheckpointManager that keeps the two newest steps plus every evaluation step.

Retention in orbax-checkpoint 0.12.8 is a preservation policy (the old `max_to_keep` /
`should_keep_fn` options are deprecated or gone). `AnyPreservationPolicy` keeps a step when any of its
policies keeps it:

- `LatestN(2)`: the two newest steps, for resuming;
- `CustomSteps(eval_steps)`: the evaluation steps, forever.

Everything else is deleted after each new checkpoint is committed (never before, so a crash during a
save cannot leave you with fewer checkpoints). The policy lives in the manager, not in the directory:
a restarted job calls `make_manager` again on the same directory, the new manager picks up the steps
already on disk, and from its first save on it prunes them by the same rule.

Usage:

    mngr = make_manager("/abs/or/relative/ckpts", eval_steps=[1000, 2000])
    for step in range(start, num_steps):
        ...
        mngr.save(step, args=ocp.args.StandardSave(state))
    mngr.wait_until_finished()   # or mngr.close(): saves are asynchronous
"""

import os

import orbax.checkpoint as ocp


def _absolute(directory: str) -> str:
    """Orbax needs an absolute path; leave remote paths (gs://...) alone."""
    return directory if "://" in str(directory) else os.path.abspath(directory)


def make_manager(directory: str, eval_steps: list[int]) -> ocp.CheckpointManager:
    """A manager on `directory` that saves every step it is given and keeps the two newest steps
    plus every step in `eval_steps`, deleting all others (also those left by an earlier run)."""
    cm = ocp.checkpoint_managers
    keep = cm.AnyPreservationPolicy(
        [
            cm.LatestN(2),
            cm.CustomSteps(sorted({int(s) for s in eval_steps})),
        ]
    )
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=1,  # every step passed to save() is written
        preservation_policy=keep,
    )
    return ocp.CheckpointManager(_absolute(directory), options=options)
