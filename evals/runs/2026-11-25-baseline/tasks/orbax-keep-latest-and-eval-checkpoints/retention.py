"""CheckpointManager that keeps the two newest checkpoints plus the evaluation checkpoints.

Orbax's retention rule: with `max_to_keep=2` the manager keeps the two newest steps, and a step
outside those is deleted unless `should_keep_fn(step)` returns True. Passing the evaluation steps
through `should_keep_fn` therefore keeps them forever while everything else older than the two
newest steps is garbage-collected after each save.

Orbax only garbage-collects when it saves, so a restarted job would keep stale checkpoints (left by
a job killed between a save and its clean-up, or by an earlier run with other settings) until its
first save. `make_manager` therefore also applies the same rule to the steps already on disk as
soon as the manager is created.
"""

import orbax.checkpoint as ocp

_NUM_LATEST = 2


def make_manager(directory: str, eval_steps: list[int]) -> ocp.CheckpointManager:
    keep_forever = frozenset(int(s) for s in eval_steps)

    options = ocp.CheckpointManagerOptions(
        max_to_keep=_NUM_LATEST,
        should_keep_fn=lambda step: int(step) in keep_forever,
        save_interval_steps=1,  # save on every step it is given
        create=True,
        # Synchronous saves: when save() returns the checkpoint is complete and old ones are gone.
        enable_async_checkpointing=False,
    )
    manager = ocp.CheckpointManager(directory, options=options)

    # Apply the rule to what a previous run left behind.
    steps = sorted(manager.all_steps())
    newest = set(steps[-_NUM_LATEST:])
    stale = [s for s in steps if s not in newest and s not in keep_forever]
    for step in stale:
        manager.delete(step)
    return manager


if __name__ == "__main__":
    import tempfile

    import jax.numpy as jnp

    with tempfile.TemporaryDirectory() as d:
        mngr = make_manager(d, eval_steps=[3, 7])
        for step in range(10):
            mngr.save(step, args=ocp.args.StandardSave({"x": jnp.full((2,), step)}))
        mngr.wait_until_finished()
        print(mngr.all_steps())  # [3, 7, 8, 9]
        mngr.close()
        mngr = make_manager(d, eval_steps=[7])  # restart with a different rule
        print(mngr.all_steps())  # [7, 8, 9]
        mngr.close()
