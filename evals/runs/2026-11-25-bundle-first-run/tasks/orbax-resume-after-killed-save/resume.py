"""Restart after a job was killed in the middle of an Orbax save.

How Orbax marks an unfinished checkpoint (local/POSIX storage): a step is written into
``<step>.orbax-checkpoint-tmp/`` and renamed to ``<step>/`` only when complete. Only folders named by
a step number count, so ``latest_step()`` of a fresh manager already skips the half-written leftovers
and the previous finished checkpoints are still there (old steps are deleted only after a new one is
committed).

The leftovers themselves are removed by a manager created with
``CheckpointManagerOptions(cleanup_tmp_directories=True)``: it starts deleting them when it is
created, in the background, and finishes before its first save.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import orbax.checkpoint as ocp

PyTree = Any


def _abstract(leaf: Any) -> jax.ShapeDtypeStruct:
    """Restore target for one leaf: its shape and dtype (and sharding, for a concrete jax.Array)."""
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    if isinstance(leaf, jax.Array):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
    return jax.ShapeDtypeStruct(jax.numpy.shape(leaf), jax.numpy.result_type(leaf))


def resume(directory: str, target: PyTree) -> tuple[ocp.CheckpointManager, int | None, PyTree | None]:
    """Open the manager and restore the newest finished step into ``target``'s structure.

    Returns ``(manager, step, state)``, or ``(manager, None, None)`` when no finished step exists.
    Keep using ``manager.save(step, args=ocp.args.StandardSave(state))`` on every step, and call
    ``manager.wait_until_finished()`` (or ``manager.close()``) before the process exits.
    """
    options = ocp.CheckpointManagerOptions(
        save_interval_steps=1,  # save every step it is given
        cleanup_tmp_directories=True,  # delete "<step>.orbax-checkpoint-tmp" leftovers
    )
    # Orbax requires an absolute path; a relative one fails only later, in the save thread.
    manager = ocp.CheckpointManager(Path(directory).resolve(), options=options)

    step = manager.latest_step()  # a fresh manager sees committed steps only
    if step is None:
        return manager, None, None
    abstract_target = jax.tree.map(_abstract, target)
    state = manager.restore(step, args=ocp.args.StandardRestore(abstract_target))
    return manager, int(step), state


if __name__ == "__main__":
    import shutil
    import tempfile

    import jax.numpy as jnp
    import numpy as np

    def state_at(step: int) -> dict:
        return {"w": jnp.full((2, 3), float(step)), "step": jnp.int32(step)}

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        mngr, step, state = resume(tmp, state_at(0))
        assert step is None and state is None
        for s in (1, 2, 3):
            mngr.save(s, args=ocp.args.StandardSave(state_at(s)))
        mngr.wait_until_finished()
        mngr.close()

        # Fake a save of step 4 killed before its commit.
        shutil.copytree(root / "3", root / "4.orbax-checkpoint-tmp")
        (root / "4.orbax-checkpoint-tmp" / "commit_success.txt").unlink(missing_ok=True)

        mngr, step, state = resume(tmp, state_at(0))
        assert step == 3 and np.array_equal(state["w"], state_at(3)["w"])
        assert state["step"].dtype == jnp.int32
        mngr.save(4, args=ocp.args.StandardSave(state_at(4)))
        mngr.wait_until_finished()
        names = sorted(p.name for p in root.iterdir())
        print(names)  # ['1', '2', '3', '4']
        assert not any("tmp" in n for n in names)
        mngr.close()
