"""Resume training from the newest *finished* Orbax checkpoint after a preemption.

How Orbax saves: a step is written into a temporary directory
`<step>.orbax-checkpoint-tmp-<timestamp>` and atomically renamed to `<step>` once everything is
written (on gs://, which has no atomic rename, it is written in place and committed by a
`commit_success.txt` file). A job killed mid-save therefore leaves a temporary directory behind,
which the CheckpointManager never treats as a step (`latest_step()` ignores it) but also never
removes by itself.

`resume` deletes those leftovers (process 0 only, before any process opens the manager), opens the
manager, and restores the newest finished step into the structure/shapes/dtypes of `target`.
"""

import dataclasses

import jax
import jax.numpy as jnp
import orbax.checkpoint as ocp
from etils import epath
from jax.experimental import multihost_utils

_TMP_MARKER = ".orbax-checkpoint-tmp"
_COMMIT_SUCCESS_FILE = "commit_success.txt"


def _is_unfinished(path: epath.Path, directory: epath.Path) -> bool:
    name = path.name
    if _TMP_MARKER in name:
        return True  # temporary directory of a save that was never renamed into place
    if str(directory).startswith("gs://") and name.isdigit():
        return not (path / _COMMIT_SUCCESS_FILE).exists()  # written in place, never committed
    return False


def _remove_unfinished_saves(directory: epath.Path) -> list[str]:
    removed = []
    if not directory.exists():
        return removed
    for child in directory.iterdir():
        if child.is_dir() and _is_unfinished(child, directory):
            child.rmtree()
            removed.append(child.name)
    return removed


def _abstract(leaf):
    if isinstance(leaf, jax.Array):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    leaf = jnp.asarray(leaf)
    return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)


def resume(directory: str, target):
    """Returns (manager, newest finished step, its state) or (manager, None, None)."""
    path = epath.Path(directory)

    # Clean up half-written saves from the killed job. Only the primary process deletes; the
    # others wait so that nobody lists the directory while it is being cleaned.
    if jax.process_index() == 0:
        _remove_unfinished_saves(path)
    if jax.process_count() > 1:
        multihost_utils.sync_global_devices("resume: removed unfinished checkpoints")

    option_kwargs = dict(
        save_interval_steps=1,  # save every step it is given
        create=True,
        # Synchronous saves: when save() returns, the step is committed (no tmp dir of its own is
        # left around if the machine is preempted right after).
        enable_async_checkpointing=False,
    )
    # Also let Orbax clean up any temporary directories it recognises itself, where supported.
    supported = {f.name for f in dataclasses.fields(ocp.CheckpointManagerOptions)}
    if "cleanup_tmp_directories" in supported:
        option_kwargs["cleanup_tmp_directories"] = True
    options = ocp.CheckpointManagerOptions(**option_kwargs)
    manager = ocp.CheckpointManager(path, options=options)

    step = manager.latest_step()  # only finished (committed) steps are listed
    if step is None:
        return manager, None, None
    abstract = jax.tree.map(_abstract, target)
    state = manager.restore(step, args=ocp.args.StandardRestore(abstract))
    return manager, step, state


if __name__ == "__main__":
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        target = {"w": jnp.zeros((2, 3)), "step": jnp.int32(0)}
        manager, step, state = resume(d, target)
        print(step)  # None
        manager.save(5, args=ocp.args.StandardSave({"w": jnp.ones((2, 3)), "step": jnp.int32(5)}))
        manager.close()
        os.makedirs(os.path.join(d, "6.orbax-checkpoint-tmp-1700000000"))  # a killed save
        manager, step, state = resume(d, target)
        print(step, state["step"], sorted(os.listdir(d)))  # 5 5 ['5']
        manager.save(6, args=ocp.args.StandardSave({"w": state["w"] + 1, "step": jnp.int32(6)}))
        print(sorted(os.listdir(d)))  # ['5', '6']
        manager.close()
