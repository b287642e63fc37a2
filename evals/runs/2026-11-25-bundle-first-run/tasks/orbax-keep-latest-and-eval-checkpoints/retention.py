"""CheckpointManager that keeps the two newest steps plus the evaluation steps forever.

Retention is a *preservation policy* (``max_to_keep``/``keep_period`` are the deprecated spellings):

    AnyPreservationPolicy([LatestN(2), CustomSteps(eval_steps)])

keeps a step when either policy keeps it: one of the two most recent steps, or one of the evaluation
steps. Everything else is deleted from disk after each new checkpoint is committed (deletion happens
only after the commit, so a crash mid-save never loses the previous checkpoints).

The policy is applied to *all* steps the manager knows about, including the ones it finds on disk when
a restarted job opens the same directory. ``make_manager`` also applies it once right away, so a
restarted job does not carry stale steps until its first save.
"""

from __future__ import annotations

from pathlib import Path

import orbax.checkpoint as ocp


def _kept(steps: list[int], eval_steps: set[int]) -> set[int]:
    """The same rule as the preservation policy: two newest steps plus the eval steps."""
    return set(sorted(steps)[-2:]) | (set(steps) & eval_steps)


def make_manager(directory: str, eval_steps: list[int]) -> ocp.CheckpointManager:
    """A manager on ``directory`` that saves every step and keeps the 2 newest + all ``eval_steps``.

    Use it as ``manager.save(step, args=ocp.args.StandardSave(pytree))`` on every step, and call
    ``manager.wait_until_finished()`` (or ``manager.close()``) before the process exits.
    """
    policies = ocp.checkpoint_managers
    eval_set = {int(s) for s in eval_steps}
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=1,  # every step it is given
        preservation_policy=policies.AnyPreservationPolicy(
            [policies.LatestN(2), policies.CustomSteps(sorted(eval_set))]
        ),
        cleanup_tmp_directories=True,  # leftovers of a save killed mid-write go away too
    )
    # Orbax requires an absolute path (a relative one only fails later, in the background thread).
    manager = ocp.CheckpointManager(Path(directory).resolve(), options=options)

    # Restarted job: apply the same rule to the steps already on disk now, not only after the next save.
    existing = list(manager.all_steps())
    for step in sorted(set(existing) - _kept(existing, eval_set)):
        manager.delete(step)
    return manager


if __name__ == "__main__":
    import tempfile

    import jax.numpy as jnp

    with tempfile.TemporaryDirectory() as tmp:
        mngr = make_manager(tmp, eval_steps=[3, 7])
        for step in range(1, 11):
            mngr.save(step, args=ocp.args.StandardSave({"w": jnp.full(3, float(step))}))
        mngr.wait_until_finished()
        print(mngr.all_steps())  # [3, 7, 9, 10]
        assert sorted(mngr.all_steps()) == [3, 7, 9, 10]
        mngr.close()

        # Restart with an extra eval step: the rule is applied again on the same directory.
        mngr = make_manager(tmp, eval_steps=[3])
        assert sorted(mngr.all_steps()) == [3, 9, 10]
        for step in range(11, 14):
            mngr.save(step, args=ocp.args.StandardSave({"w": jnp.full(3, float(step))}))
        mngr.wait_until_finished()
        print(mngr.all_steps())  # [3, 12, 13]
        assert sorted(mngr.all_steps()) == [3, 12, 13]
        assert sorted(p.name for p in Path(tmp).iterdir()) == ["12", "13", "3"]
        mngr.close()
