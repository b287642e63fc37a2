"""Save and restore a training state (params, Optax state, step) with Orbax, bit for bit.

Why `manager.restore(step)` returned dicts and lists
----------------------------------------------------
Without a target, Orbax rebuilds the tree from what it stored on disk, and it stores containers
generically: Optax's NamedTuple states (ScaleByAdamState, EmptyState, ...) come back as dicts/lists.
Give `restore` an abstract target with the structure you want (`ocp.args.StandardRestore(abstract)`,
built from a freshly initialised state): Orbax then fills exactly that structure, with the saved
values, and with the dtypes/shapes/shardings of the target.
"""

import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import orbax.checkpoint as ocp


def _manager(directory: pathlib.Path) -> ocp.CheckpointManager:
    return ocp.CheckpointManager(
        pathlib.Path(directory),
        options=ocp.CheckpointManagerOptions(create=True, save_interval_steps=1),
    )


def _abstract(leaf):
    """ShapeDtypeStruct (with sharding) describing one leaf of the target state."""
    if not isinstance(leaf, jax.Array):
        leaf = jnp.asarray(leaf)
    return jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=leaf.sharding)


def save_state(directory: pathlib.Path, step: int, state: dict) -> None:
    """Save `state` as checkpoint `step`; returns when it is fully written (committed)."""
    manager = _manager(directory)
    try:
        manager.save(int(step), args=ocp.args.StandardSave(state), force=True)
        manager.wait_until_finished()
    finally:
        manager.close()


def restore_latest(directory: pathlib.Path, like: dict) -> tuple[int, dict]:
    """(newest step, state saved at it) with the pytree structure, dtypes and shardings of `like`."""
    manager = _manager(directory)
    try:
        step = manager.latest_step()
        if step is None:
            raise FileNotFoundError(f"no finished checkpoint in {directory}")
        abstract = jax.tree.map(_abstract, like)
        restored = manager.restore(step, args=ocp.args.StandardRestore(abstract))
    finally:
        manager.close()

    # The target fixes the structure; make sure nothing came back as generic containers.
    if jax.tree.structure(restored) != jax.tree.structure(like):
        raise TypeError(
            "restored state does not have the structure of `like`: "
            f"{jax.tree.structure(restored)} vs {jax.tree.structure(like)}"
        )
    return int(step), restored


if __name__ == "__main__":
    import tempfile

    import optax

    tx = optax.adamw(1e-3)
    params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}
    state = {"params": params, "opt_state": tx.init(params), "step": jnp.int32(0)}
    grads = jax.tree.map(jnp.ones_like, params)
    updates, opt_state = tx.update(grads, state["opt_state"], params)
    state = {
        "params": optax.apply_updates(params, updates),
        "opt_state": opt_state,
        "step": jnp.int32(1),
    }

    with tempfile.TemporaryDirectory() as d:
        save_state(pathlib.Path(d), 1, state)
        fresh = {"params": params, "opt_state": tx.init(params), "step": jnp.int32(0)}
        step, restored = restore_latest(pathlib.Path(d), fresh)
        same = jax.tree.all(
            jax.tree.map(lambda a, b: bool(np.array_equal(a, b)) and a.dtype == b.dtype,
                         restored, state)
        )
        print(step, type(restored["opt_state"][0]).__name__, same)
        tx.update(grads, restored["opt_state"], restored["params"])  # works again
