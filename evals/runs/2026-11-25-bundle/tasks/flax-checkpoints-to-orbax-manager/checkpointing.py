"""Save and restore the training state with Orbax's CheckpointManager (orbax-checkpoint 0.12.8).

Replaces the old `flax.training.checkpoints` module. The two functions keep their signatures:

    save(directory, step, state)               # writes step, keeps the 3 newest, blocks until done
    restore_latest(directory, like) -> (step, state)

What changed and why:
  * Retention: `keep=3` becomes `preservation_policy=LatestN(3)` (the older `max_to_keep=3` is
    deprecated). Old steps are deleted only after the new one is committed, so a crash during a
    save never leaves you without a checkpoint.
  * Completion: Orbax saves in a background thread by default. `save` waits for the commit
    (`wait_until_finished`) and closes the manager, so the checkpoint is complete on return and
    nothing is lost if the process exits right after. A killed save leaves only a
    `<step>.orbax-checkpoint-tmp` directory, which `latest_step()` ignores.
  * Restoring: always into a target built from `like`. Without one, Orbax rebuilds containers as
    plain dicts/lists (optax's `ScaleByAdamState` would come back as a `dict` and the optimizer would
    fail with "'dict' object has no attribute 'mu'"). With the target, the pytree structure (the
    optax NamedTuples), dtypes (bfloat16 included) and shapes come back exactly as saved.
  * Orbax requires an absolute directory, so the path is resolved first.

Overwriting: the flax code used `overwrite=True`. Orbax's manager silently skips a save whose step
is not newer than the latest one; here an existing checkpoint of the same step is deleted and the
step is written anyway (`force=True`), which matches the old behaviour.

Old checkpoints written by `flax.training.checkpoints` (files named `checkpoint_<step>`) are not
readable by the CheckpointManager. Convert them once, e.g.
`save(new_dir, step, checkpoints.restore_checkpoint(old_dir, target=like))`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import numpy as np
import orbax.checkpoint as ocp

KEEP = 3


def _options(read_only: bool = False) -> ocp.CheckpointManagerOptions:
    return ocp.CheckpointManagerOptions(
        preservation_policy=ocp.checkpoint_managers.LatestN(KEEP),
        read_only=read_only,
    )


def save(directory: str, step: int, state: Any) -> None:
    """Write `state` as checkpoint `step` under `directory`, keeping the 3 most recent steps.

    The checkpoint is fully written and committed when this returns.
    """
    path = Path(directory).resolve()
    step = int(step)
    with ocp.CheckpointManager(path, options=_options()) as mngr:
        if step in mngr.all_steps():  # overwrite=True semantics of the old code
            mngr.delete(step)
        mngr.save(step, args=ocp.args.StandardSave(state), force=True)
        mngr.wait_until_finished()  # block until the background write is committed


def _restore_target(leaf: Any) -> Any:
    """An abstract restore target for one leaf of `like`."""
    if isinstance(leaf, jax.Array):
        # Keep the sharding so the array comes back on the same device(s) as `like`.
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
    if isinstance(leaf, np.ndarray):
        return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype)
    return leaf  # already abstract (ShapeDtypeStruct) or a Python/NumPy scalar


def _match_leaf_type(like_leaf: Any, restored_leaf: Any) -> Any:
    """Give Python scalars in `like` (e.g. an int step counter) back as Python scalars."""
    if isinstance(like_leaf, (bool, int, float)) and not isinstance(like_leaf, (np.ndarray, jax.Array)):
        return type(like_leaf)(np.asarray(restored_leaf).item())
    if isinstance(like_leaf, np.ndarray):
        return np.asarray(restored_leaf)
    return restored_leaf


def restore_latest(directory: str, like: Any) -> tuple[int, Any]:
    """Return (step, state) of the newest checkpoint under `directory`.

    `like` is a state built the same way as the saved one (e.g. freshly initialised, or
    `jax.eval_shape` of it); the result has its pytree structure, dtypes and shapes, with the saved
    values. Works in a fresh process: nothing is kept between calls.
    """
    path = Path(directory).resolve()
    with ocp.CheckpointManager(path, options=_options(read_only=True)) as mngr:
        step = mngr.latest_step()
        if step is None:
            raise FileNotFoundError(f"No checkpoint found in {path}")
        target = jax.tree.map(_restore_target, like)
        restored = mngr.restore(step, args=ocp.args.StandardRestore(target))
    state = jax.tree.map(_match_leaf_type, like, restored)
    return int(step), state


if __name__ == "__main__":
    import tempfile

    import jax.numpy as jnp
    import optax

    def fresh_state():
        params = {"w": jnp.zeros((3, 2), jnp.bfloat16), "b": jnp.zeros(2)}
        return {"params": params, "opt_state": optax.adam(1e-2).init(params), "step": jnp.int32(0)}

    tx = optax.adam(1e-2)
    state = fresh_state()
    with tempfile.TemporaryDirectory() as d:
        for step in range(1, 6):
            grads = jax.tree.map(jnp.ones_like, state["params"])
            updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
            state = {"params": optax.apply_updates(state["params"], updates),
                     "opt_state": opt_state, "step": jnp.int32(step)}
            save(d, step, state)
        print(sorted(p.name for p in Path(d).iterdir()))  # ['3', '4', '5']
        step, restored = restore_latest(d, fresh_state())
        assert step == 5 and jax.tree.structure(restored) == jax.tree.structure(state)
        for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(restored)):
            assert a.dtype == b.dtype and np.array_equal(np.asarray(a), np.asarray(b))
        tx.update(grads, restored["opt_state"], restored["params"])  # usable by the optimizer
