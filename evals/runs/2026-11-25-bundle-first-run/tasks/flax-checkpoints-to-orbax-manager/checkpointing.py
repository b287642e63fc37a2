"""Save and restore the training state with Orbax's CheckpointManager (orbax-checkpoint 0.12.8).

Replaces ``flax.training.checkpoints`` (deprecated in favour of Orbax). Same two functions:

* ``save(directory, step, state)`` writes ``state`` as checkpoint ``step`` and keeps the 3 most
  recent steps (``preservation_policy=LatestN(3)``, the current spelling of the deprecated
  ``max_to_keep=3``). It waits for the background write to be committed before returning, so the
  checkpoint is complete when ``save`` returns.
* ``restore_latest(directory, like)`` returns ``(step, state)`` of the newest *committed* step (a save
  killed half-way leaves only a ``<step>.orbax-checkpoint-tmp`` directory, which Orbax ignores).

Why ``like`` matters: without a target Orbax rebuilds the tree from what the checkpoint records, nested
dicts and lists, so Adam's ``ScaleByAdamState`` would come back as a ``dict`` and the next
``tx.update`` fails (``AttributeError: 'dict' object has no attribute 'mu'``). Restoring into an
abstract target built from ``like`` (``jax.ShapeDtypeStruct`` per leaf, no memory used) gives back the
exact pytree structure, dtypes (the bfloat16 parameter stays bfloat16) and bits that were saved.

No state is kept between calls: each call opens its own manager on the directory and closes it, so
``restore_latest`` works in a fresh process.
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp

KEEP = 3


def _is_python_scalar(leaf) -> bool:
    return isinstance(leaf, (bool, int, float, complex)) and not isinstance(leaf, (np.ndarray, jax.Array))


def _as_arrays(tree):
    """Python scalars (e.g. a plain ``int`` step counter) become 0-d arrays, so every leaf is an array."""
    return jax.tree.map(lambda leaf: jnp.asarray(leaf) if _is_python_scalar(leaf) else leaf, tree)


def _abstract_target(like):
    """A pytree of ShapeDtypeStruct with the structure, shapes, dtypes (and shardings) of ``like``."""

    def to_struct(leaf):
        if isinstance(leaf, jax.Array):
            return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)
        if isinstance(leaf, np.ndarray):
            return leaf  # a NumPy leaf in the target restores as a NumPy array of that shape/dtype
        arr = jnp.asarray(leaf)
        return jax.ShapeDtypeStruct(arr.shape, arr.dtype, sharding=arr.sharding)

    return jax.tree.map(to_struct, _as_arrays(like))


def _manager(directory: str) -> ocp.CheckpointManager:
    options = ocp.CheckpointManagerOptions(
        preservation_policy=ocp.checkpoint_managers.LatestN(KEEP),
    )
    # Orbax requires an absolute path (a relative one fails in the background writer).
    return ocp.CheckpointManager(Path(directory).resolve(), options=options)


def save(directory: str, step: int, state) -> None:
    """Write ``state`` as checkpoint ``step`` under ``directory``, keeping the 3 most recent steps.

    Like the old ``overwrite=True``: an existing checkpoint at ``step`` or at a later step is removed
    first, so saving after rolling back to an earlier step replaces the newer checkpoints. The
    checkpoint is committed on disk when this function returns.
    """
    step = int(step)
    with _manager(directory) as mngr:
        for existing in mngr.all_steps():
            if existing >= step:
                mngr.delete(existing)
        # force=True: write this step regardless of the save-decision policies.
        mngr.save(step, args=ocp.args.StandardSave(_as_arrays(state)), force=True)
        mngr.wait_until_finished()  # the asynchronous write is committed before we return


def restore_latest(directory: str, like) -> tuple[int, object]:
    """Return ``(step, state)`` of the newest checkpoint, restored with the structure of ``like``.

    ``like`` is a state built the same way (e.g. freshly initialised params, ``tx.init(params)`` and
    a step counter); only its structure, shapes, dtypes and shardings are used.
    Raises ``FileNotFoundError`` if the directory holds no finished checkpoint.
    """
    with _manager(directory) as mngr:
        step = mngr.latest_step()
        if step is None:
            raise FileNotFoundError(f"No checkpoint found in {Path(directory).resolve()}")
        restored = mngr.restore(step, args=ocp.args.StandardRestore(_abstract_target(like)))

    # Give Python-scalar leaves of `like` (e.g. an int step counter) back their Python type.
    restored = jax.tree.map(
        lambda template, value: type(template)(value.item()) if _is_python_scalar(template) else value,
        like,
        restored,
    )
    return int(step), restored


if __name__ == "__main__":
    import tempfile

    import optax

    tx = optax.adam(1e-3)

    def fresh_state():
        params = {"w": jnp.ones((3, 2), jnp.bfloat16), "b": jnp.zeros(2, jnp.float32)}
        return {"params": params, "opt_state": tx.init(params), "step": jnp.int32(0)}

    state = fresh_state()
    ckpt_dir = tempfile.mkdtemp()
    for step in range(1, 6):
        grads = jax.tree.map(jnp.ones_like, state["params"])
        updates, opt_state = tx.update(grads, state["opt_state"], state["params"])
        state = {"params": optax.apply_updates(state["params"], updates), "opt_state": opt_state,
                 "step": jnp.int32(step)}
        save(ckpt_dir, step, state)

    print(sorted(p.name for p in Path(ckpt_dir).iterdir()))  # ['3', '4', '5']
    step, back = restore_latest(ckpt_dir, fresh_state())
    assert step == 5
    assert jax.tree.structure(back) == jax.tree.structure(state)
    for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(back)):
        assert a.dtype == b.dtype and np.array_equal(np.asarray(a), np.asarray(b))
    tx.update(jax.tree.map(jnp.ones_like, back["params"]), back["opt_state"], back["params"])  # usable
    print("restored step", step, "w dtype", back["params"]["w"].dtype)
